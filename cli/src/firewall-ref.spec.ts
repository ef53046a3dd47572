import { NotFoundError } from './errors';
import { pickFirewall } from './firewall-ref';

describe('pickFirewall', () => {
  const web = { id: '11111111-1111-4111-8111-111111111111', name: 'web' };
  const ssh = { id: '22222222-2222-4222-8222-222222222222', name: 'ssh only' };

  it('takes the firewall with that name, exactly', () => {
    expect(pickFirewall([web, ssh], 'ssh only')).toBe(ssh.id);
    expect(() => pickFirewall([web], 'Web')).toThrow(NotFoundError);
  });

  it('says where names are listed when no firewall has the name', () => {
    expect(() => pickFirewall([], 'db')).toThrow('no firewall named "db" in this account ("hostctl firewall list" shows names and ids)');
  });
});
