import { CommanderError } from 'commander';
import { HostingApiError } from '@hosting-account/sdk';
import { NotFoundError, UsageError } from './errors';
import { describeFailure } from './failure';
import { ApiUnreachableError } from './unreachable';

describe('describeFailure', () => {
  const refused = () =>
    new HostingApiError(new Response(null, { status: 401, headers: { 'x-request-id': 'req-1' } }), {
      type: 'https://api.example/problems/unauthorized',
      title: 'Unauthorized',
      status: 401,
      code: 'unauthorized',
      detail: 'The token is invalid, expired or revoked.',
      requestId: 'req-1',
    });

  it('gives an API error its code, status and detail, and the problem for JSON', () => {
    const failure = describeFailure(refused());
    expect(failure).toMatchObject({ exitCode: 1, code: 'unauthorized', status: 401, detail: 'The token is invalid, expired or revoked.' });
    expect(failure.textLines).toEqual(['  status: 401', '  code: unauthorized', '  request id: req-1']);
    expect(failure.extra).toMatchObject({ requestId: 'req-1', title: 'Unauthorized' });
  });

  it('names HOSTCTL_TOKEN when the refused token came from it, and only then', () => {
    const fromEnvironment = describeFailure(refused(), { credentialSource: 'HOSTCTL_TOKEN' });
    expect(fromEnvironment.textLines.at(-1)).toMatch(/^ {2}The token comes from HOSTCTL_TOKEN, which wins over the context's credentials/);
    expect(fromEnvironment.extra.hint).toMatch(/^The token comes from HOSTCTL_TOKEN/);
    expect(describeFailure(refused(), { credentialSource: 'context "ci"' }).extra.hint).toBeUndefined();
  });

  it('gives local errors a code, no status and their exit code', () => {
    expect(describeFailure(new UsageError('bad'))).toMatchObject({ exitCode: 2, code: 'usage', status: null, detail: 'bad' });
    expect(describeFailure(new NotFoundError('no VPS'))).toMatchObject({ exitCode: 1, code: 'not_found', status: null });
    expect(describeFailure(new CommanderError(1, 'commander.missingArgument', "error: missing required argument 'id'"))).toMatchObject({
      exitCode: 2,
      code: 'usage',
      detail: "missing required argument 'id'",
    });
    const unreachable = describeFailure(new ApiUnreachableError('http://127.0.0.1:9', 'HOSTCTL_URL', new Error('refused')));
    expect(unreachable).toMatchObject({ exitCode: 1, code: 'unreachable', status: null, extra: { url: 'http://127.0.0.1:9' } });
  });
});
