import { barChart, humanRate, resample } from './chart';

describe('terminal chart', () => {
  it('averages the points of each column and leaves columns without points empty', () => {
    expect(
      resample(
        [
          [0, 2],
          [1, 4],
          [5, 10],
          [10, 8],
        ],
        0,
        10,
        5,
      ),
    ).toEqual([3, null, 10, null, 8]);
  });

  it('draws bars from 0 to the largest value, eight steps a row, labelled top and bottom', () => {
    const rows = barChart([0, 1, 2, null, 4], { width: 5, height: 2, label: (v) => `${v} %` });
    expect(rows).toEqual(['4 % ┤    █', '0 % ┤ ▄█ █']);
    expect(barChart([null, 0], { width: 2, height: 1, label: String })).toEqual(['0 ┤']);
  });

  it('writes rates with decimal prefixes and three significant digits', () => {
    expect([0, 999, 1500, 12_345_678, 4.2e12].map((v) => humanRate(v, 'B/s'))).toEqual([
      '0 B/s',
      '999 B/s',
      '1.50 kB/s',
      '12.3 MB/s',
      '4.20 TB/s',
    ]);
  });
});
