import { seriesFromMatrix } from './prometheus-series';

describe('series from a query_range matrix', () => {
  it('numbers devices per kind in name order and names the series', () => {
    const series = seriesFromMatrix([
      { metric: { series: 'cpu' }, values: [[100, '12.34567']] },
      { metric: { series: 'disk.iops.read', target_device: 'vdb' }, values: [[100, '2']] },
      { metric: { series: 'disk.iops.read', target_device: 'vda' }, values: [[100, '1']] },
      { metric: { series: 'disk.bandwidth.write', target_device: 'vdb' }, values: [[100, '4096']] },
      { metric: { series: 'network.bandwidth.in', target_device: 'vnet7' }, values: [[100, '10']] },
    ]);
    expect(series).toEqual({
      cpu: [[100, 12.346]],
      'disk.0.iops.read': [[100, 1]],
      'disk.1.iops.read': [[100, 2]],
      'disk.1.bandwidth.write': [[100, 4096]],
      'network.0.bandwidth.in': [[100, 10]],
    });
  });

  it('leaves out points that are not numbers, and series left empty', () => {
    expect(
      seriesFromMatrix([
        {
          metric: { series: 'cpu' },
          values: [
            [100, 'NaN'],
            [110, '+Inf'],
            [120, '3'],
          ],
        },
        { metric: { series: 'disk.iops.write', target_device: 'vda' }, values: [[100, 'NaN']] },
        { metric: {}, values: [[100, '1']] },
      ]),
    ).toEqual({ cpu: [[120, 3]] });
  });
});
