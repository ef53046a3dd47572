import { lostWithReplica, refusedDuringFault } from './audit';
import { McpFailure, ReplayCheck } from './customers';
import { FaultSchedule } from './faults';
import { Random } from './random';
import type { SoakWorld } from './world';

const schedule = () => {
  const faults = new FaultSchedule({} as SoakWorld, new Random(1), 0, true, () => undefined);
  faults.log.push({ kind: 'postgres-restart', at: 30_000, endedAt: 32_000, detail: '' });
  faults.log.push({ kind: 'api-2-kill', at: 60_000, endedAt: 63_000, detail: '' });
  return faults;
};

const replay = (at: number, replayStatus: number): ReplayCheck => ({
  key: `k-${at}`,
  path: '/api/services/x/actions',
  at,
  ms: 200,
  firstStatus: 202,
  replayStatus,
  same: replayStatus === 202,
  replayedHeader: replayStatus === 202 ? 'true' : null,
});

describe('refusedDuringFault', () => {
  it('sets aside a replay refused 503 during a PostgreSQL restart, never one that answered otherwise', () => {
    const replays = [replay(31_000, 503), replay(31_500, 201), replay(31_600, 500), replay(90_000, 503)];
    expect(refusedDuringFault(replays, schedule()).map((r) => r.key)).toEqual(['k-31000']);
  });
});

describe('lostWithReplica', () => {
  const failure = (openedAt: number, at: number, status = 404): McpFailure => ({
    session: `s-${openedAt}`,
    method: 'tools/list',
    status,
    text: 'Session not found',
    openedAt,
    at,
  });

  it('explains a 404 in a session open when a replica was killed or came back, not one opened long after or ended before', () => {
    const failures = [
      failure(58_000, 64_000),
      failure(64_000, 70_000),
      failure(85_000, 90_000),
      failure(40_000, 50_000),
      failure(58_000, 64_000, 400),
    ];
    expect(lostWithReplica(failures, schedule().log)).toEqual([failures[0], failures[1]]);
  });
});
