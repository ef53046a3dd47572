import { ValidateBy, ValidationOptions } from 'class-validator';

/**
 * The transports a host's URI may name: libvirt's own connections (a local socket, TCP, TLS, SSH).
 * `ext` runs any program of this machine, and so do the `command` and `netcat` parameters (the
 * latter on the host): a typo in an operator's URI must not run a program.
 */
export const HOST_URI_TRANSPORTS = ['qemu', 'qemu+unix', 'qemu+ssh', 'qemu+libssh', 'qemu+libssh2', 'qemu+tls', 'qemu+tcp'] as const;

const PATH = /^\/[A-Za-z0-9._/-]{1,200}$/;
const FLAG = /^[01]$/;
const oneOf = (...values: string[]) => new RegExp(`^(${values.join('|')})$`);
const SSH_AUTH = 'agent|privkey|password|keyboard-interactive';

/** The parameters of libvirt's remote URIs that choose files, checks and daemons, each with the values it may take. */
export const HOST_URI_PARAMETERS: Record<string, RegExp> = {
  socket: PATH,
  keyfile: PATH,
  pkipath: PATH,
  known_hosts: PATH,
  no_verify: FLAG,
  no_tty: FLAG,
  known_hosts_verify: oneOf('normal', 'auto', 'ignore'),
  sshauth: new RegExp(`^(${SSH_AUTH})(,(${SSH_AUTH}))*$`),
  mode: oneOf('auto', 'direct', 'legacy'),
  proxy: oneOf('auto', 'netcat', 'native'),
  tls_priority: /^[A-Za-z0-9:+.!_-]{1,200}$/,
};

/** What runs a program, named in the refusal. */
const RUNS_A_PROGRAM = new Set(['command', 'netcat', 'qemu+ext']);

const URI = /^(?<scheme>[^:/?#]+):\/\/(?<authority>[^/?#]*)(?<path>\/[^?#]*)(?:\?(?<query>[^#]*))?$/;
const AUTHORITY = /^(?:[A-Za-z0-9._-]{1,64}@)?(?:[A-Za-z0-9.-]{1,253}|\[[0-9A-Fa-f:.]{2,45}\])?(?::\d{1,5})?$/;

/**
 * Why a host's libvirt URI is refused, or null when it is accepted: a transport of
 * HOST_URI_TRANSPORTS, an optional user, host and port, the path /system or /session, and only the
 * parameters of HOST_URI_PARAMETERS (each once, with a plain value). libvirt also splits the
 * parameters at `;` and unescapes `%xx`, so a value holding either is refused.
 */
export function libvirtUriProblem(uri: string): string | null {
  if (uri.length > 300) return 'uri must be at most 300 characters';
  const parts = URI.exec(uri)?.groups;
  if (!parts) return 'uri must be a libvirt connection URI such as qemu+ssh://root@kvm2/system';
  const scheme = parts.scheme.toLowerCase();
  if (!(HOST_URI_TRANSPORTS as readonly string[]).includes(scheme))
    return `uri: the transport ${scheme} is not allowed${why(scheme)}; use one of ${HOST_URI_TRANSPORTS.join(', ')}`;
  if (!AUTHORITY.test(parts.authority)) return `uri: "${parts.authority}" is not a user, host name or address and port`;
  if (!['/system', '/session'].includes(parts.path)) return 'uri: the path must be /system or /session';
  if (parts.query === undefined) return null;
  const seen = new Set<string>();
  for (const pair of parts.query.split('&')) {
    const equals = pair.indexOf('=');
    const name = equals < 0 ? pair : pair.slice(0, equals);
    const value = equals < 0 ? '' : pair.slice(equals + 1);
    const pattern = Object.hasOwn(HOST_URI_PARAMETERS, name) ? HOST_URI_PARAMETERS[name] : undefined;
    if (!pattern) return `uri: the parameter "${name}" is not allowed${why(name)}; allowed: ${Object.keys(HOST_URI_PARAMETERS).join(', ')}`;
    if (seen.has(name)) return `uri: the parameter ${name} is given twice`;
    seen.add(name);
    if (!pattern.test(value)) return `uri: "${value}" is not a valid value of ${name}`;
  }
  return null;
}

const why = (name: string) => (RUNS_A_PROGRAM.has(name) ? ' (it runs a program)' : '');

/** A host's libvirt URI as libvirtUriProblem accepts it; its message names what was refused. */
export function IsHostLibvirtUri(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isHostLibvirtUri',
      validator: {
        validate: (value: unknown) => typeof value === 'string' && libvirtUriProblem(value) === null,
        defaultMessage: (args) =>
          (typeof args?.value === 'string' && libvirtUriProblem(args.value)) || 'uri must be a libvirt connection URI',
      },
    },
    options,
  );
}
