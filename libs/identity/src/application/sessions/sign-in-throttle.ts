import { createHash } from 'node:crypto';
import { Injectable, OnModuleInit } from '@nestjs/common';
import { Clock, clientAddressKey, DomainError, JobQueue, SharedErrors } from '@app/shared-kernel';
import { DataSource } from 'typeorm';

/** Address rows belong to no tenant: they are kept under the nil organization. */
const NO_ORGANIZATION = '00000000-0000-0000-0000-000000000000';
export const PURGE_SIGN_IN_ATTEMPTS_JOB = 'sign_in_attempts.purge';

interface Policy {
  /** Attempts admitted without delay; from this one on, each admitted attempt locks the next. */
  free: number;
}

/** Per account: five tries, then 1 s, 2 s, 4 s … between attempts. */
export const ACCOUNT_POLICY: Policy = { free: 5 };
/** Per client address (an IPv6 /64): twenty failures, then the same growing delay. */
export const ADDRESS_POLICY: Policy = { free: 20 };
/** The longest delay between two attempts. */
export const MAX_DELAY_SECONDS = 15 * 60;
/** Attempts are forgotten once none has come for this long. */
export const FORGET_AFTER_SECONDS = 60 * 60;
/** 2^20 s is far past the cap: keeps power() finite whatever the count. */
const MAX_EXPONENT = 20;

export interface SignInAttempt {
  /** The organization named, or null for a legacy sign-in (unique address across organizations). */
  organizationId: string | null;
  /** Normalized. */
  email: string;
  /** The client address as the HTTP edge resolved it (TRUST_PROXY applied). */
  clientAddress: string;
}

/**
 * Password guessing is throttled per account and per client address with a growing delay,
 * counted in the database so that every instance shares the count. An attempt is counted when
 * admitted, before the password is checked, so parallel guesses cannot slip past the count; a
 * success clears the account's count and refunds its own attempt to the address. The account is
 * the organization named and the address typed, whether or not such a user exists: the answer
 * never says which.
 */
@Injectable()
export class SignInThrottle implements OnModuleInit {
  constructor(
    private readonly dataSource: DataSource,
    private readonly clock: Clock,
    private readonly jobs: JobQueue,
  ) {}

  onModuleInit(): void {
    this.jobs.define({
      name: PURGE_SIGN_IN_ATTEMPTS_JOB,
      cron: '41 * * * *',
      handler: async () => void (await this.purgeForgotten()),
    });
  }

  /** Counts the attempt against its address, then its account; 429 RATE_LIMITED while either is locked. */
  async admit(attempt: SignInAttempt): Promise<void> {
    const now = this.clock.now();
    for (const [organizationId, subject, policy] of this.subjects(attempt)) {
      const admitted = await this.count(organizationId, subject, policy, now);
      if (!admitted) throw await this.refusal(organizationId, subject, now);
    }
  }

  async succeeded(attempt: SignInAttempt): Promise<void> {
    const [address, account] = this.subjects(attempt);
    await this.dataSource.query('DELETE FROM sign_in_attempts WHERE organization_id = $1 AND subject = $2', [
      account[0],
      account[1],
    ]);
    await this.dataSource.query(
      'UPDATE sign_in_attempts SET attempts = greatest(attempts - 1, 0) WHERE organization_id = $1 AND subject = $2',
      [address[0], address[1]],
    );
  }

  async purgeForgotten(): Promise<number> {
    const now = this.clock.now();
    const [, deleted]: [unknown, number] = await this.dataSource.query(
      `DELETE FROM sign_in_attempts WHERE last_attempt_at < $1::timestamptz - make_interval(secs => $2) AND locked_until <= $1`,
      [now, FORGET_AFTER_SECONDS],
    );
    return deleted;
  }

  private subjects(attempt: SignInAttempt): Array<[string, string, Policy]> {
    const account = createHash('sha256').update(attempt.email).digest('base64url');
    return [
      [NO_ORGANIZATION, clientAddressKey(attempt.clientAddress), ADDRESS_POLICY],
      [attempt.organizationId ?? NO_ORGANIZATION, `account:${account}`, ACCOUNT_POLICY],
    ];
  }

  /**
   * One statement: a locked subject is left as it is (false); otherwise counted, and locked as its
   * count requires. The update reads the row it locked, so parallel attempts each count. Every
   * time is computed here or by immutable arithmetic on epoch seconds (`to_timestamp(float8)`):
   * Citus refuses a STABLE function (`timestamptz + interval`) in an ON CONFLICT's SET clause.
   */
  private async count(organizationId: string, subject: string, policy: Policy, now: Date): Promise<boolean> {
    const forgottenBefore = new Date(now.getTime() - FORGET_AFTER_SECONDS * 1000);
    const next = 'CASE WHEN a.last_attempt_at < $6::timestamptz THEN 1 ELSE a.attempts + 1 END';
    const lockedUntil = (attempts: string) =>
      `to_timestamp($7::float8 + CASE WHEN ${attempts} >= $4::int
         THEN least($5::float8, power(2, least(${attempts} - $4::int, ${MAX_EXPONENT}))) ELSE 0 END)`;
    const rows: unknown[] = await this.dataSource.query(
      `INSERT INTO sign_in_attempts AS a (organization_id, subject, attempts, locked_until, last_attempt_at)
       VALUES ($1, $2, 1, ${lockedUntil('1')}, $3::timestamptz)
       ON CONFLICT (organization_id, subject) DO UPDATE
          SET attempts = ${next}, locked_until = ${lockedUntil(next)}, last_attempt_at = $3
        WHERE a.locked_until <= $3::timestamptz
       RETURNING a.attempts`,
      [organizationId, subject, now, policy.free, MAX_DELAY_SECONDS, forgottenBefore, now.getTime() / 1000],
    );
    return rows.length > 0;
  }

  private async refusal(organizationId: string, subject: string, now: Date): Promise<DomainError> {
    const [row]: Array<{ locked_until: Date }> = await this.dataSource.query(
      'SELECT locked_until FROM sign_in_attempts WHERE organization_id = $1 AND subject = $2',
      [organizationId, subject],
    );
    const seconds = Math.max(1, Math.ceil(((row?.locked_until.getTime() ?? now.getTime()) - now.getTime()) / 1000));
    return SharedErrors.RATE_LIMITED.create(`Too many sign-in attempts; retry in ${seconds} seconds.`, {
      details: { retry_after_seconds: seconds },
    });
  }
}
