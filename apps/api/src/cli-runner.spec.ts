import { ComputeProviderError } from '@app/vps';
import { failureOf } from './cli-runner';

describe("the operator's command line: failures", () => {
  it("prints a hypervisor's refusal as its problem, then what the hypervisor itself said", () => {
    const said =
      "virsh define failed: error: unsupported configuration: Emulator '/usr/bin/qemu-system-x86_64' does not support virt type 'kvm'";
    const refused = new ComputeProviderError('hypervisor_error', 'The hypervisor refused the request.').withOperatorDetail(said);
    expect(failureOf(refused)).toEqual({
      code: 65,
      message: `invalid_state: The hypervisor refused the request.\nhypervisor said: ${said}`,
    });
  });

  it('prints a refusal without words of the hypervisor as before', () => {
    const refused = new ComputeProviderError('not_found', 'The machine does not exist on the hypervisor.');
    expect(failureOf(refused)).toEqual({ code: 65, message: 'invalid_state: The machine does not exist on the hypervisor.' });
  });
});
