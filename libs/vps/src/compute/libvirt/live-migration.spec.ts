import { downtimeOf, migrationAddress } from './live-migration';

describe('live migration: where the streams go and what libvirt measured', () => {
  it('streams to the host part of the URI the API reaches the new host at, a local daemon at 127.0.0.1', () => {
    expect(migrationAddress('qemu+ssh://root@10.0.0.5/system')).toBe('10.0.0.5');
    expect(migrationAddress('qemu+tcp://kvm2.example.net:16509/system')).toBe('kvm2.example.net');
    expect(migrationAddress('qemu+ssh://root@[2001:db8::5]/system')).toBe('2001:db8::5');
    expect(migrationAddress('qemu:///system')).toBe('127.0.0.1');
    expect(migrationAddress('qemu+unix:///session?socket=/tmp/x/libvirt-sock')).toBe('127.0.0.1');
    expect(migrationAddress('qemu+ssh://localhost/system')).toBe('127.0.0.1');
  });

  it("reads the destination's Total downtime, null when libvirt did not say", () => {
    const info = 'Job type:         Completed\nOperation:        Incoming migration\nTime elapsed:     1244 ms\nTotal downtime:   142 ms\n';
    expect(downtimeOf(info)).toBe(142);
    expect(downtimeOf('Job type:         None\n')).toBeNull();
  });
});
