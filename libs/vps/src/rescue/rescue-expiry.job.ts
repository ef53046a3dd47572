import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { JobQueue } from '@app/core';
import { VpsRescuesRepository } from './vps-rescues.repository';
import { RescueService } from './rescue.service';

/** A rescue ends at the latest this long after RESCUE_HOURS have passed. */
export const RESCUE_EXPIRY_INTERVAL_SECONDS = 60;

/**
 * Every minute, on one replica: each rescue past its end boots its VPS's own disk again (an
 * `unrescue` by the system, with a notice to the customer). A VPS busy with an action, or not active,
 * is looked at again next round.
 */
@Injectable()
export class RescueExpiryJob implements OnModuleInit {
  private readonly logger = new Logger('RescueExpiry');

  constructor(
    private readonly rescues: VpsRescuesRepository,
    private readonly service: RescueService,
    private readonly jobs: JobQueue,
  ) {}

  onModuleInit(): void {
    this.jobs.every('rescue-expiry', RESCUE_EXPIRY_INTERVAL_SECONDS, async () => void (await this.endExpired()));
  }

  /** Ends the rescues that ran out; returns how many it began to end. */
  async endExpired(): Promise<number> {
    let ended = 0;
    for (const serviceId of await this.rescues.expired()) {
      try {
        if (await this.service.expire(serviceId)) ended++;
      } catch (err) {
        this.logger.warn(`Ending the rescue of ${serviceId} failed (next round retries): ${(err as Error).message}`);
      }
    }
    return ended;
  }
}
