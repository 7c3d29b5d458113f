import { Transactional } from '@nestjs-cls/transactional';
import { Injectable, OnModuleInit } from '@nestjs/common';
import { AuditLog, Clock, JobQueue, JobTenant, jobTenantOf } from '@app/shared-kernel';
import { HoldRepository } from '../../domain/hold.repository';
import { WalletKey, WalletRepository } from '../../domain/wallet.repository';
import { holdResponse } from '../transaction-response';
import { WalletEvents } from '../wallet-events';

export const RELEASE_EXPIRED_HOLD_JOB = 'wallets.release-expired-hold';
/** Jobs queued before fair scheduling carry no workspace mode. */
export type ReleaseJob = WalletKey & { holdId: string; workspaceMode?: JobTenant['workspaceMode'] };
const RETRY_MARGIN_MS = 250;

/** Releases a hold at its `expires_at` (a job sent with the hold, in its transaction). */
@Injectable()
export class ExpiredHoldReleaser implements OnModuleInit {
  constructor(
    private readonly jobs: JobQueue,
    private readonly wallets: WalletRepository,
    private readonly holds: HoldRepository,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
    private readonly events: WalletEvents,
  ) {}

  onModuleInit(): void {
    this.jobs.define<ReleaseJob>({
      name: RELEASE_EXPIRED_HOLD_JOB,
      // P8: released within 2 s of expires_at (a capture after it is refused anyway).
      maxLatencySeconds: 0.5,
      handler: (data) => this.release(data),
    });
  }

  /** A hold already captured or released, or not yet expired, is left alone. */
  @Transactional()
  async release({ holdId, workspaceMode, ...key }: ReleaseJob): Promise<void> {
    const wallet = await this.wallets.lock(key);
    const hold = wallet && (await this.holds.lock(key, holdId));
    const now = this.clock.now();
    if (!wallet || !hold || hold.snapshot.status !== 'pending' || !hold.snapshot.expiresAt) return;
    if (!hold.isExpired(now)) {
      // Picked up a moment early by this instance's clock: try again just after expires_at.
      const retryAt = new Date(Math.max(hold.snapshot.expiresAt!.getTime(), now.getTime()) + RETRY_MARGIN_MS);
      const job: ReleaseJob = { ...key, holdId, workspaceMode };
      await this.jobs.send(RELEASE_EXPIRED_HOLD_JOB, jobTenantOf(job), job, { startAfter: retryAt });
      return;
    }
    wallet.releaseHold(hold, 'expired', now);
    await this.wallets.save(
      wallet,
      this.holds.update(key, hold),
      this.audit.write(
        { organizationId: key.organizationId, workspaceId: key.workspaceId, principal: { type: 'system', id: null } },
        { action: 'wallet_hold.expired', resourceType: 'wallet_hold', resourceId: holdId, data: { wallet_id: key.walletId } },
      ),
      ...(await this.events.stage({ ...key, workspaceMode }, [], [{ type: 'wallet.hold.released', object: holdResponse(hold) }])),
    );
  }
}
