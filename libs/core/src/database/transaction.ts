import { Injectable } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { DataSource, EntityManager } from 'typeorm';
import { DomainEvent } from '../events/domain-event';
import { inTransaction } from './transaction-scope';

export type Publish = (event: DomainEvent) => void;

/**
 * Runs work in one transaction and emits the domain events it collected only after COMMIT.
 * Listeners never run inside the transaction: on the single-connection embedded database a
 * listener's own query would wait for the connection the transaction holds.
 */
@Injectable()
export class TransactionRunner {
  constructor(
    private readonly dataSource: DataSource,
    private readonly events: EventEmitter2,
  ) {}

  async run<T>(work: (manager: EntityManager, publish: Publish) => Promise<T>): Promise<T> {
    const pending: DomainEvent[] = [];
    const result = await inTransaction(this.dataSource, (manager) => work(manager, (event) => pending.push(event)));
    for (const event of pending) this.emit(event);
    return result;
  }

  emit(event: DomainEvent): void {
    this.events.emit(event.name, event);
  }
}
