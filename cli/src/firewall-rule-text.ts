import { readFileSync } from 'node:fs';
import { fromYaml } from './yaml';
import type { FirewallRule } from '@hosting-account/sdk';
import { UsageError } from './errors';

export const EVERYWHERE = ['0.0.0.0/0', '::/0'];
export const RULE_SYNTAX = 'in|out tcp|udp|icmp [PORT|FROM-TO] [ADDRESS,...] [# description]';

/** The rule syntax and what rules mean, for the help of the commands that take them. */
export const RULES_HELP = `
A rule is: ${RULE_SYNTAX}
  The port is one port or a range, left out for every port (and always for icmp); addresses are
  IPv4 and IPv6 CIDRs separated by commas, everywhere (0.0.0.0/0,::/0) when left out. Once a
  firewall is applied, inbound traffic no rule allows is dropped; outbound passes unless some
  firewall of the VPS has an out rule. Answers to allowed connections always pass.
  --rules-file takes a JSON or YAML list of rules (objects as the API takes them, or lines as
  --rule takes them; in YAML, quote a line with a # description), or what
  "hostctl firewall get <firewall> -o json" prints.
`;

/**
 * A rule as written on the command line: `in tcp 22`, `in tcp 8000-8100 10.0.0.0/8,2001:db8::/32`,
 * `in icmp`, `out udp 53 # dns`. Addresses default to everywhere (IPv4 and IPv6); `any` says so
 * too. Ports and addresses are checked by the API, which names the rule it refuses.
 */
export function parseRule(text: string): FirewallRule {
  const hash = text.indexOf('#');
  const description = hash >= 0 ? text.slice(hash + 1).trim() : '';
  const [direction, protocol, ...rest] = (hash >= 0 ? text.slice(0, hash) : text).trim().toLowerCase().split(/\s+/);
  const refuse = (why: string) => new UsageError(`rule "${text}": ${why} (a rule is: ${RULE_SYNTAX})`);
  if (direction !== 'in' && direction !== 'out') throw refuse(`begins with the direction, in or out, not "${direction ?? ''}"`);
  if (protocol !== 'tcp' && protocol !== 'udp' && protocol !== 'icmp')
    throw refuse(`the protocol is tcp, udp or icmp, not "${protocol ?? ''}"`);
  const port = /^\d+(-\d+)?$/.test(rest[0] ?? '') ? rest.shift() : undefined;
  const addresses: string[] = [];
  for (const word of rest.flatMap((w) => w.split(',')).filter(Boolean)) {
    if (word === 'any') addresses.push(...EVERYWHERE);
    else if (/[.:]/.test(word)) addresses.push(word);
    else throw refuse(/^\d/.test(word) ? `"${word}": the port comes before the addresses` : `"${word}" is neither a port nor an address`);
  }
  return {
    direction,
    protocol,
    ...(port !== undefined && { port }),
    addresses: addresses.length ? [...new Set(addresses)] : EVERYWHERE,
    ...(description && { description }),
  };
}

/** The rule as `parseRule` reads it back. */
export function ruleText(rule: FirewallRule): string {
  const addresses = rule.addresses.join(',');
  return [rule.direction, rule.protocol, rule.port, addresses, rule.description && `# ${rule.description}`].filter(Boolean).join(' ');
}

/**
 * The rules of a JSON or YAML file (`-` for standard input): a list of rules, each an object as the
 * API takes it or a line as `--rule` takes it, or an object with such a `rules` list (what
 * `hostctl firewall get -o json` prints).
 */
export function readRulesFile(path: string): FirewallRule[] {
  let content: unknown;
  try {
    content = fromYaml(readFileSync(path === '-' ? 0 : path, 'utf8'));
  } catch (error) {
    throw new UsageError(`--rules-file ${path}: ${(error as Error).message.split('\n')[0]}`);
  }
  const list = Array.isArray(content) ? content : (content as { rules?: unknown } | null)?.rules;
  if (!Array.isArray(list)) throw new UsageError(`--rules-file ${path}: expected a list of rules, or an object with "rules"`);
  return list.map((item) => (typeof item === 'string' ? parseRule(item) : (item as FirewallRule)));
}

/** The rules of `--rules-file` followed by those of `--rule`, in that order (the API's `rules[i]` counts them so). */
export function rulesFromOptions(options: { rule?: string[]; rulesFile?: string }): FirewallRule[] {
  return [...(options.rulesFile ? readRulesFile(options.rulesFile) : []), ...(options.rule ?? []).map(parseRule)];
}
