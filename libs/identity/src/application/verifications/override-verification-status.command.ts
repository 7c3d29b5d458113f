import { Command, Query } from '@nestjs/cqrs';
import { Actor, Page } from '@app/shared-kernel';
import { VerificationStatus, VerificationType } from '../../domain/customer-verification';

/** A verification as lists show it. */
export interface VerificationSummaryView {
  id: string;
  customerId: string;
  status: VerificationStatus;
  verificationType: VerificationType;
  createdAt: Date;
}

/** The detail read: the provider, its reference and raw result, every timestamp. */
export interface VerificationView extends VerificationSummaryView {
  provider: string;
  providerReference: string;
  /** The provider's last applied result as it sent it (parsed JSON), or null before any. */
  providerResult: unknown;
  updatedAt: Date;
  completedAt: Date | null;
  expiresAt: Date | null;
}

export interface VerificationFilters {
  customerId?: string;
  status?: VerificationStatus;
  verificationType?: VerificationType;
  /** created_at ≥ this. */
  occurredAfter?: Date;
  /** created_at < this. */
  occurredBefore?: Date;
}

export class ListVerificationsQuery extends Query<Page<VerificationSummaryView>> {
  constructor(
    readonly actor: Actor,
    readonly limit: number,
    readonly cursor: string | undefined,
    readonly filters: VerificationFilters,
  ) {
    super();
  }
}

export class GetVerificationQuery extends Query<VerificationView> {
  constructor(
    readonly actor: Actor,
    readonly verificationId: string,
  ) {
    super();
  }
}

/** Admin override: only a permitted transition; the same status changes nothing. */
export class OverrideVerificationStatusCommand extends Command<VerificationView> {
  constructor(
    readonly actor: Actor,
    readonly verificationId: string,
    readonly status: unknown,
  ) {
    super();
  }
}

/** A provider's signed report; a duplicate delivery changes nothing, an older one never moves the record back. */
export class ProcessVerificationWebhookCommand extends Command<{ duplicate: boolean }> {
  constructor(
    readonly provider: string,
    readonly rawBody: string,
    readonly signature: string | undefined,
  ) {
    super();
  }
}

/** Sandbox test helper: a check of the sandbox provider, opened in the status the test chooses. */
export class CreateSandboxVerificationCommand extends Command<VerificationView> {
  constructor(
    readonly actor: Actor,
    readonly input: { customerId: string; verificationType: unknown; status?: unknown; expiresAt?: Date },
  ) {
    super();
  }
}
