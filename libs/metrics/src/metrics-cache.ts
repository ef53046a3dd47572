import { Injectable } from '@nestjs/common';
import { AppConfig } from '@app/core';
import type { MetricsSeries } from './source/metrics-source';

/** A 30-day answer of every type is ~7000 points, about 0.5 MB in memory: at most ~25 MB held. */
export const MAX_CACHED_READS = 50;

interface Entry {
  answer: Promise<MetricsSeries>;
  /** Infinity while the query runs. */
  expiresAt: number;
}

/**
 * Answers of identical metrics reads (same account, VPS, types and points) for METRICS_CACHE_SECONDS
 * after they arrive; reads made while the query runs wait for it, so a dashboard's burst costs
 * the metrics system one query. Failures are not kept. Per process, like the answers it saves.
 */
@Injectable()
export class MetricsCache {
  private readonly entries = new Map<string, Entry>();
  private readonly ttlMs: number;

  constructor(config: AppConfig) {
    this.ttlMs = config.metrics.cacheSeconds * 1000;
  }

  read(key: string, load: () => Promise<MetricsSeries>): Promise<MetricsSeries> {
    if (this.ttlMs <= 0) return load();
    const found = this.entries.get(key);
    if (found && found.expiresAt > Date.now()) return found.answer;
    this.sweep();
    const entry: Entry = { answer: load(), expiresAt: Infinity };
    this.entries.set(key, entry);
    entry.answer.then(
      () => (entry.expiresAt = Date.now() + this.ttlMs),
      () => this.entries.get(key) === entry && this.entries.delete(key),
    );
    return entry.answer;
  }

  /** Drops expired answers, and the oldest while the cache is full (a Map iterates in insertion order). */
  private sweep(): void {
    const now = Date.now();
    for (const [key, entry] of this.entries) if (entry.expiresAt <= now) this.entries.delete(key);
    for (const key of this.entries.keys()) {
      if (this.entries.size < MAX_CACHED_READS) break;
      this.entries.delete(key);
    }
  }
}
