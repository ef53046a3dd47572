import { outputArgument } from './main';

describe('outputArgument', () => {
  it.each([
    [['-o', 'json', 'services', 'list'], 'json'],
    [['services', 'list', '--output', 'yaml'], 'yaml'],
    [['services', 'list', '--output=json'], 'json'],
    [['services', 'list', '-ojson'], 'json'],
    [['-o', 'json', 'services', 'list', '-o', 'table'], 'table'],
    [['services', 'list'], undefined],
  ])('%j asks for %s', (args, expected) => {
    expect(outputArgument(args)).toBe(expected);
  });
});
