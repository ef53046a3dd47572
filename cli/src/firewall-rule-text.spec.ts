import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UsageError } from './errors';
import { EVERYWHERE, parseRule, readRulesFile, ruleText, rulesFromOptions } from './firewall-rule-text';

describe('parseRule', () => {
  it.each([
    ['in tcp 22', { direction: 'in', protocol: 'tcp', port: '22', addresses: EVERYWHERE }],
    ['in tcp 80 0.0.0.0/0,::/0', { direction: 'in', protocol: 'tcp', port: '80', addresses: EVERYWHERE }],
    [
      'IN TCP 8000-8100 10.0.0.0/8 2001:db8::/32',
      { direction: 'in', protocol: 'tcp', port: '8000-8100', addresses: ['10.0.0.0/8', '2001:db8::/32'] },
    ],
    ['in icmp', { direction: 'in', protocol: 'icmp', addresses: EVERYWHERE }],
    ['in icmp 198.51.100.7 # monitoring', { direction: 'in', protocol: 'icmp', addresses: ['198.51.100.7'], description: 'monitoring' }],
    ['out udp 53 any #dns', { direction: 'out', protocol: 'udp', port: '53', addresses: EVERYWHERE, description: 'dns' }],
    ['  in  udp  ', { direction: 'in', protocol: 'udp', addresses: EVERYWHERE }],
  ])('reads %j', (text, rule) => {
    expect(parseRule(text)).toEqual(rule);
  });

  it.each([
    ['tcp 22', 'begins with the direction, in or out, not "tcp"'],
    ['', 'begins with the direction, in or out, not ""'],
    ['in', 'the protocol is tcp, udp or icmp, not ""'],
    ['in gre', 'the protocol is tcp, udp or icmp, not "gre"'],
    ['in tcp ssh', '"ssh" is neither a port nor an address'],
    ['in tcp 0.0.0.0/0 22', '"22": the port comes before the addresses'],
  ])('refuses %j as a usage error', (text, why) => {
    expect(() => parseRule(text)).toThrow(UsageError);
    expect(() => parseRule(text)).toThrow(
      `rule "${text}": ${why} (a rule is: in|out tcp|udp|icmp [PORT|FROM-TO] [ADDRESS,...] [# description])`,
    );
  });

  it('leaves ports and addresses to the API, which names the rule it refuses', () => {
    expect(parseRule('in icmp 8 10.0.0.300')).toEqual({ direction: 'in', protocol: 'icmp', port: '8', addresses: ['10.0.0.300'] });
  });

  it('writes a rule as it reads it', () => {
    for (const text of ['in tcp 22 0.0.0.0/0,::/0', 'in icmp 198.51.100.7/32 # monitoring', 'out udp 53 10.0.0.0/8'])
      expect(ruleText(parseRule(text))).toBe(text);
  });
});

describe('readRulesFile', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hostctl-rules-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };

  it('reads a JSON list, a firewall as hostctl prints it, and YAML with rules as objects or lines', () => {
    const rule = { direction: 'in', protocol: 'tcp', port: '443', addresses: ['0.0.0.0/0'] };
    expect(readRulesFile(file('a.json', JSON.stringify([rule])))).toEqual([rule]);
    expect(readRulesFile(file('b.json', JSON.stringify({ id: 'x', name: 'web', rules: [rule], appliedTo: [] })))).toEqual([rule]);
    expect(
      readRulesFile(
        file(
          'c.yaml',
          '- in tcp 22\n- "in tcp 80 # quoted: a YAML comment otherwise"\n- direction: in\n  protocol: icmp\n  addresses: [::/0]\n',
        ),
      ),
    ).toEqual([
      { direction: 'in', protocol: 'tcp', port: '22', addresses: EVERYWHERE },
      { direction: 'in', protocol: 'tcp', port: '80', addresses: EVERYWHERE, description: 'quoted: a YAML comment otherwise' },
      { direction: 'in', protocol: 'icmp', addresses: ['::/0'] },
    ]);
    expect(readRulesFile(file('empty.json', '[]'))).toEqual([]);
  });

  it('refuses a missing file, bad syntax and anything but a list as usage errors', () => {
    expect(() => readRulesFile(join(dir, 'none.json'))).toThrow(/^--rules-file .*none\.json: ENOENT/);
    expect(() => readRulesFile(file('bad.json', '[{"direction": "in",'))).toThrow(UsageError);
    expect(() => readRulesFile(file('obj.json', '{"name": "web"}'))).toThrow('expected a list of rules, or an object with "rules"');
  });

  it('puts the file first and the --rule options after it', () => {
    const path = file('d.yaml', '- in tcp 22\n');
    expect(rulesFromOptions({ rulesFile: path, rule: ['in icmp'] }).map((r) => r.protocol)).toEqual(['tcp', 'icmp']);
    expect(rulesFromOptions({})).toEqual([]);
  });
});
