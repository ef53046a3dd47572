import { Problem } from '@app/core';
import { HostAddCommand } from '../fleet/cli/host-add.command';
import type { HostsService } from '../fleet/hosts.service';
import { libvirtUriProblem } from './libvirt-uri';

describe('libvirtUriProblem (a host:add URI)', () => {
  it.each([
    'qemu:///system',
    'qemu+ssh://root@kvm2.eu-central/system',
    'qemu+ssh://root@kvm2:2222/system?keyfile=/etc/hosting/id_ed25519&no_tty=1&known_hosts=/etc/hosting/known_hosts',
    'qemu+libssh://root@kvm2/system?known_hosts_verify=normal&sshauth=privkey,agent',
    'qemu+tls://kvm2.example/system?pkipath=/etc/pki/libvirt&tls_priority=NORMAL:-VERS-SSL3.0',
    'qemu+tcp://10.0.0.2:16509/system',
    'qemu+tcp://[fd00::2]:16509/system',
    'qemu+unix:///session?socket=/run/user/1000/libvirt/virtqemud-sock&mode=direct',
    'qemu+ssh://root@kvm2/system?proxy=native&no_verify=1',
  ])('accepts %s', (uri) => {
    expect(libvirtUriProblem(uri)).toBeNull();
  });

  it.each([
    ['qemu+ext:///system?command=/tmp/x', 'the transport qemu+ext is not allowed (it runs a program)'],
    ['QEMU+EXT:///system', 'the transport qemu+ext is not allowed'],
    ['xen+ssh://root@kvm2/system', 'the transport xen+ssh is not allowed'],
    ['qemu+ssh://root@kvm2/system?command=/tmp/evil', 'the parameter "command" is not allowed (it runs a program)'],
    ['qemu+ssh://root@kvm2/system?netcat=sh%20-c%20id', 'the parameter "netcat" is not allowed (it runs a program)'],
    ['qemu+ssh://root@kvm2/system?COMMAND=/tmp/evil', 'the parameter "COMMAND" is not allowed'],
    ['qemu+ssh://root@kvm2/system?%63ommand=/tmp/evil', 'the parameter "%63ommand" is not allowed'],
    ['qemu+ssh://root@kvm2/system?name=qemu%2Bext:///system', 'the parameter "name" is not allowed'],
    // libvirt splits parameters at ';' too: this is socket=/x and command=/tmp/evil to it.
    ['qemu+unix:///system?socket=/x;command=/tmp/evil', 'is not a valid value of socket'],
    ['qemu+ssh://root@kvm2/system?keyfile=/k&keyfile=/j', 'keyfile is given twice'],
    ['qemu+ssh://root@kvm2/system?keyfile', '"" is not a valid value of keyfile'],
    ['qemu+ssh://root@kvm2/system?no_tty=yes', 'is not a valid value of no_tty'],
    ['qemu+ssh://root@kvm2/embed?root=/tmp', 'the path must be /system or /session'],
    ['qemu+ssh://root@kvm 2/system', 'is not a user, host name or address and port'],
    ['kvm2', 'uri must be a libvirt connection URI'],
  ])('refuses %s: %s', (uri, problem) => {
    expect(libvirtUriProblem(uri)).toContain(problem);
  });
});

describe('host:add --uri', () => {
  it('refuses a URI that runs a program as invalid input (exit 65), before the hypervisor is asked', async () => {
    const hosts = { add: jest.fn() };
    const command = new HostAddCommand(hosts as unknown as HostsService);
    const args = { name: 'kvm2', region: 'eu-central', vcpus: '8', 'memory-gb': '32', 'disk-gb': '500' };
    const refused = await command.run({ ...args, uri: 'qemu+ssh://root@kvm2/system?command=/tmp/evil' }).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(Problem);
    expect(refused).toMatchObject({ status: 400, code: 'invalid_input' });
    expect((refused as Problem).detail).toContain('the parameter "command" is not allowed (it runs a program)');
    expect(hosts.add).not.toHaveBeenCalled();
    await command.run({ ...args, uri: 'qemu+ssh://root@kvm2/system?keyfile=/etc/hosting/id_ed25519' });
    expect(hosts.add).toHaveBeenCalledWith(expect.objectContaining({ uri: 'qemu+ssh://root@kvm2/system?keyfile=/etc/hosting/id_ed25519' }));
  });
});
