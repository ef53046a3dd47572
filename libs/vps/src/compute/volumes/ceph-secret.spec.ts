import { cephSecretUuid, cephSecretXml } from './ceph-secret';

const monitors = [{ host: '10.0.0.1', port: 6789 }];

describe('the libvirt secret of the cephx key', () => {
  it('has a version 5 UUID that every host and restart agrees on, another per client and cluster', () => {
    const uuid = cephSecretUuid('hosting', monitors);
    expect(uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(cephSecretUuid('hosting', [{ host: '10.0.0.1', port: 6789 }])).toBe(uuid);
    expect(cephSecretUuid('admin', monitors)).not.toBe(uuid);
    expect(cephSecretUuid('hosting', [{ host: '10.0.0.2', port: 6789 }])).not.toBe(uuid);
  });

  it('is private, for Ceph, named after the client', () => {
    expect(cephSecretXml('u-1', 'hosting')).toBe(
      "<secret ephemeral='no' private='yes'><uuid>u-1</uuid><usage type='ceph'><name>hosting-api client.hosting</name></usage></secret>",
    );
  });
});
