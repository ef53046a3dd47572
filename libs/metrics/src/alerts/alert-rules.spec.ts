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

  it('fires when every point of a covered window is above, resolves when the latest is not, and keeps its state otherwise', () => {
    const at = (...values: number[]): [number, number][] => values.map((v, i) => [i * 60, v]);
    expect(stateOf(at(5, 6), 4, 'ok', 0)).toBe('firing');
    expect(stateOf(at(5, 4), 4, 'firing', 0)).toBe('ok');
    expect(stateOf(at(3, 6), 4, 'ok', 0)).toBe('ok');
    expect(stateOf(at(3, 6), 4, 'firing', 0)).toBe('firing');
    expect(stateOf([], 4, 'firing', 0)).toBeNull();
  });

  it('does not fire on a series younger than the window', () => {
    const young: [number, number][] = [
      [240, 9],
      [300, 9],
    ];
    expect(stateOf(young, 4, 'ok', 0)).toBe('ok');
    expect(stateOf(young, 4, 'ok', 180)).toBe('firing');
  });
});
