import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Injectable } from '@nestjs/common';

/**
 * NOTIFY from inside the current transaction: PostgreSQL delivers it to every listening
 * instance when, and only if, the transaction commits.
 */
@Injectable()
export class TransactionalNotifier {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  async notify(channel: string, payload: string): Promise<void> {
    if (!this.txHost.isTransactionActive()) throw new Error('TransactionalNotifier.notify must run inside a transaction');
    await this.txHost.tx.query('SELECT pg_notify($1, $2)', [channel, payload]);
  }
}
