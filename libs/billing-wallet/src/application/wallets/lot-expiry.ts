import { Transactional } from '@nestjs-cls/transactional';
import { Injectable, OnModuleInit } from '@nestjs/common';
import { AuditLog, Clock, JobQueue } from '@app/shared-kernel';
import { DataSource } from 'typeorm';
import { WalletRepository } from '../../domain/wallet.repository';
import type { WalletKey } from '../../domain/wallet.repository';
import { WalletEvents } from '../wallet-events';

export const EXPIRE_PROMOTIONAL_LOTS_JOB = 'wallets.expire-promotional-lots';
const SYSTEM = { type: 'system', id: null };
const BATCH = 500;

/**
 * Every minute, the remainders of expired promotional lots leave their wallets through one
 * `expiry` ledger line each. Spending already ignores expired lots, so only the reported
 * balance waits for this job.
 */
@Injectable()
export class PromotionalLotExpiry implements OnModuleInit {
  constructor(
    private readonly jobs: JobQueue,
    private readonly dataSource: DataSource,
    private readonly wallets: WalletRepository,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
    private readonly events: WalletEvents,
  ) {}

  onModuleInit(): void {
    this.jobs.define({ name: EXPIRE_PROMOTIONAL_LOTS_JOB, cron: '* * * * *', handler: async () => void (await this.sweep()) });
  }

  /** Returns how many wallets had lots expired. */
  async sweep(): Promise<number> {
    let expired = 0;
    // Keyset over the due wallets: a wallet whose expired lots pending holds still cover stays
    // due, and must not be fetched again in the same sweep.
    let after: string[] = [];
    for (;;) {
      const due: Array<{ organization_id: string; workspace_id: string; wallet_id: string }> = await this.dataSource.query(
        `SELECT DISTINCT organization_id, workspace_id, wallet_id FROM promotional_lots
          WHERE remaining > 0 AND expires_at IS NOT NULL AND expires_at <= $1
            AND ($2::uuid IS NULL OR (organization_id, workspace_id, wallet_id) > ($2::uuid, $3::uuid, $4::uuid))
          ORDER BY organization_id, workspace_id, wallet_id LIMIT ${BATCH}`,
        [this.clock.now(), after[0] ?? null, after[1] ?? null, after[2] ?? null],
      );
      for (const row of due) {
        if (await this.expire({ organizationId: row.organization_id, workspaceId: row.workspace_id, walletId: row.wallet_id }))
          expired += 1;
      }
      if (due.length < BATCH) return expired;
      const last = due[due.length - 1];
      after = [last.organization_id, last.workspace_id, last.wallet_id];
    }
  }

  @Transactional()
  async expire(key: WalletKey): Promise<boolean> {
    const wallet = await this.wallets.lock(key);
    if (!wallet) return false;
    const availableBefore = wallet.availableBalance;
    const entries = wallet.expireLots(this.clock.now(), SYSTEM);
    if (entries.length === 0) return false;
    const events = await this.events.stage(key, [{ wallet, availableBefore }]);
    await this.wallets.save(
      wallet,
      this.audit.write(
        { organizationId: key.organizationId, workspaceId: key.workspaceId, principal: SYSTEM },
        {
          action: 'wallet.promotions_expired',
          resourceType: 'wallet',
          resourceId: key.walletId,
          data: { transaction_ids: entries.map((entry) => entry.id) },
        },
      ),
      ...events,
    );
    return true;
  }
}
