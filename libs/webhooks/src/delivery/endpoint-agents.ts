import http from 'node:http';
import https from 'node:https';

/** Endpoints with an open connection kept, at most; past it the least recently used is closed. */
const MAX_AGENTS = 256;
/** An idle connection is closed after this: below the 5 s keep-alive of Node's and most servers, so we close first. */
const IDLE_MS = 4_000;

/**
 * One keep-alive agent per endpoint URL and checked address: the next attempt to an
 * endpoint reuses the connection of the last, instead of a TCP (and TLS) handshake each time. An
 * agent only ever connects to the address it was made for, so the pinned address check holds.
 */
export class EndpointAgents {
  private readonly agents = new Map<string, http.Agent>();

  for(url: URL, address: string): http.Agent {
    // Per endpoint, not per origin: endpoints on one host never wait for each other's connections.
    const key = `${url.href} ${address}`;
    let agent = this.agents.get(key);
    if (agent) {
      this.agents.delete(key); // re-inserted last: the Map's order is the recency
    } else {
      const options = {
        keepAlive: true,
        keepAliveMsecs: 1_000,
        maxSockets: 2,
        maxFreeSockets: 1,
        timeout: IDLE_MS,
        scheduling: 'lifo' as const,
      };
      agent = url.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
      if (this.agents.size >= MAX_AGENTS) {
        const [oldest, old] = this.agents.entries().next().value!;
        this.agents.delete(oldest);
        old.destroy();
      }
    }
    this.agents.set(key, agent);
    return agent;
  }

  destroyAll(): void {
    for (const agent of this.agents.values()) agent.destroy();
    this.agents.clear();
  }
}
