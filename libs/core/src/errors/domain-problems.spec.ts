import { asProblem, problemFor } from './domain-problems';
import { Problem } from './problem';

class GatewayDown extends Error {}
class RegionGatewayDown extends GatewayDown {}

describe('domain problems', () => {
  problemFor(GatewayDown, (err) => new Problem(503, 'unavailable', err.message));

  it('reads a domain error, and its subclasses, through its mapping', () => {
    for (const err of [new GatewayDown('down'), new RegionGatewayDown('down')]) {
      const problem = asProblem(err)!;
      expect({ status: problem.getStatus(), code: problem.code, detail: problem.detail }).toEqual({
        status: 503,
        code: 'unavailable',
        detail: 'down',
      });
    }
  });

  it('passes a Problem through and knows nothing else', () => {
    const conflict = Problem.conflict('invalid_state', 'busy');
    expect(asProblem(conflict)).toBe(conflict);
    expect(asProblem(new Error('bug'))).toBeUndefined();
    expect(asProblem('text')).toBeUndefined();
  });
});
