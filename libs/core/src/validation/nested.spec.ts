import { IsString } from 'class-validator';
import { Problem } from '../errors/problem';
import { validateInput } from './validate-input';
import { IsListOf, IsNestedObject } from './nested';

class Item {
  @IsString()
  name: string;
}

class WithList {
  @IsListOf(() => Item)
  items: Item[];
}

class WithObject {
  @IsNestedObject(() => Item)
  item: Item;
}

async function fieldErrorsOf(type: new () => object, body: object): Promise<string[] | 'valid'> {
  try {
    await validateInput(type, body);
    return 'valid';
  } catch (err) {
    if (!(err instanceof Problem) || err.code !== 'invalid_input') throw err;
    return (err.errors ?? []).map((e) => e.field);
  }
}

describe('nested validation', () => {
  it('validates each item of a list as its class', async () => {
    expect(await fieldErrorsOf(WithList, { items: [{ name: 'a' }, { name: 'b' }] })).toBe('valid');
    expect(await fieldErrorsOf(WithList, { items: [{ name: 'a' }, { name: 1 }] })).toEqual(['items[1].name']);
    expect(await fieldErrorsOf(WithList, { items: [{ name: 'a', extra: 1 }] })).toEqual(['items[0].extra']);
  });

  it.each([[[[]]], [[[[]]]], [[[{ name: 'a' }]]], [[null]], [[1]], [['x']], [{}], [{ 0: { name: 'a' } }], ['x'], [null]])(
    'refuses the list %j, naming the property (issue 36, finding 6)',
    async (items) => {
      expect(await fieldErrorsOf(WithList, { items })).toEqual(['items']);
    },
  );

  it('validates a nested object as its class', async () => {
    expect(await fieldErrorsOf(WithObject, { item: { name: 'a' } })).toBe('valid');
    expect(await fieldErrorsOf(WithObject, { item: { name: 1 } })).toEqual(['item.name']);
  });

  it.each([[[]], [[[]]], [[{ name: 'a' }]], [null], [1], ['x'], [true]])('refuses the object %j, naming the property', async (item) => {
    expect(await fieldErrorsOf(WithObject, { item })).toEqual(['item']);
  });
});
