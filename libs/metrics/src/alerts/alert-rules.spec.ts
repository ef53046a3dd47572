import { alertPoints, stateOf } from './alert-rules';

describe('alert rules', () => {
  it('sums the devices of a type per time and ignores the other series', () => {
    const series = {
      cpu: [[60, 99]] as [number, number][],
      'disk.0.bandwidth.write': [
        [0, 1],
        [60, 2],
      ] as [number, number][],
      'disk.1.bandwidth.write': [[60, 10]] as [number, number][],
      'disk.0.bandwidth.read': [[60, 1000]] as [number, number][],
    };
    expect(alertPoints('disk.write', series)).toEqual([
      [0, 1],
      [60, 12],
    ]);
    expect(alertPoints('network.in', series)).toEqual([]);
  });

  it('fires when every point is above, resolves when the latest is not, and keeps its state otherwise', () => {
    expect(
      stateOf(
        [
          [0, 5],
          [60, 6],
        ],
        4,
        'ok',
      ),
    ).toBe('firing');
    expect(
      stateOf(
        [
          [0, 5],
          [60, 4],
        ],
        4,
        'firing',
      ),
    ).toBe('ok');
    expect(
      stateOf(
        [
          [0, 3],
          [60, 6],
        ],
        4,
        'ok',
      ),
    ).toBe('ok');
    expect(
      stateOf(
        [
          [0, 3],
          [60, 6],
        ],
        4,
        'firing',
      ),
    ).toBe('firing');
    expect(stateOf([], 4, 'firing')).toBeNull();
  });
});
