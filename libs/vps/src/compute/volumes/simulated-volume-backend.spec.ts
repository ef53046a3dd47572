import { SimulatedVolumeBackend } from './simulated-volume-backend';
import { GIB } from './volume-backend';

describe('SimulatedVolumeBackend', () => {
  const ref = { volumeId: '9b2e4f10-3c5d-4e6f-8a7b-1c2d3e4f5a6b', region: 'eu-central' };

  it('keeps the rules of the real backends: create once, grow only, remove what may be gone', async () => {
    const volumes = new SimulatedVolumeBackend();
    await volumes.create(ref, 10);
    await volumes.create(ref, 20);
    expect(await volumes.sizeOf(ref)).toBe(10 * GIB);
    await volumes.resize(ref, 15);
    await volumes.resize(ref, 15);
    await expect(volumes.resize(ref, 5)).rejects.toMatchObject({ code: 'invalid_size' });
    expect(await volumes.list()).toEqual([{ ref: { volumeId: ref.volumeId, region: '' }, sizeBytes: 15 * GIB, mark: 'ours' }]);
    await volumes.remove(ref);
    await volumes.remove(ref);
    expect(await volumes.exists(ref)).toBe(false);
    await expect(volumes.sizeOf(ref)).rejects.toMatchObject({ code: 'not_found' });
  });
});
