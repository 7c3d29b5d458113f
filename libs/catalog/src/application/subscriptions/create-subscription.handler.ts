import { Transactional, TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { CommandHandler, ICommandHandler, QueryBus } from '@nestjs/cqrs';
import { GetCustomerQuery } from '@app/identity';
import { AuditLog, Clock, DomainError, invalidParameter, isUuid, preparedQuery, SharedErrors } from '@app/shared-kernel';
import { catalogNotFound, CatalogErrors } from '../../domain/catalog-errors';
import { PRICE_CADENCE_UNITS, PriceCadenceUnit } from '../../domain/plan';
import { SubscriptionRepository } from '../../domain/subscriber-ports';
import {
  PLAN_TRACK_MODES,
  PlanTrackMode,
  Subscription,
  VERSION_CHANGE_STRATEGIES,
  VersionChangeStrategy,
} from '../../domain/subscription';
import { CreateSubscriptionCommand } from './create-subscription.command';
import { CatalogEvents } from '../catalog-events';
import { GetSubscriptionQuery } from './get-subscription.query';

function oneOf<T extends string>(param: string, allowed: readonly T[], value: string | undefined, fallback: T): T {
  if (value === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(value))
    throw invalidParameter(param, 'INVALID_VALUE', `${param} must be one of ${allowed.join(', ')}.`);
  return value as T;
}

@CommandHandler(CreateSubscriptionCommand)
export class CreateSubscriptionHandler implements ICommandHandler<CreateSubscriptionCommand> {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly queries: QueryBus,
    private readonly subscriptions: SubscriptionRepository,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
    private readonly catalogEvents: CatalogEvents,
  ) {}

  @Transactional()
  async execute(command: CreateSubscriptionCommand): Promise<string> {
    const { actor } = command;
    return this.catalogEvents.around(actor, 'subscription.created', () => this.run(command), {
      after: (id) => new GetSubscriptionQuery(actor, id),
    });
  }

  @Transactional()
  private async run({ actor, input }: CreateSubscriptionCommand): Promise<string> {
    const cadenceInput = input.billingCadence;
    if (cadenceInput !== undefined && !(PRICE_CADENCE_UNITS as readonly string[]).includes(cadenceInput)) {
      throw invalidParameter(
        'billing_cadence',
        'INVALID_VALUE',
        `billing_cadence must be one of ${PRICE_CADENCE_UNITS.join(', ')}.`,
      );
    }
    const planTrackMode = oneOf<PlanTrackMode>('plan_track_mode', PLAN_TRACK_MODES, input.planTrackMode, 'pinned');
    const strategy = oneOf<VersionChangeStrategy>(
      'version_change_strategy',
      VERSION_CHANGE_STRATEGIES,
      input.versionChangeStrategy,
      'next_period',
    );
    const pins = input.productPins ?? [];
    if (new Set(pins.map((pin) => pin.productId)).size !== pins.length) {
      throw invalidParameter('product_pins', 'DUPLICATE_VALUE', 'product_pins names a product more than once.');
    }
    // The customer through identity's own query: another tenant's is a 404 as an unknown one.
    await this.queries.execute(new GetCustomerQuery(actor, input.customerId)).catch((error: unknown) => {
      if (error instanceof DomainError && error.code === 'CUSTOMER_NOT_FOUND') {
        throw SharedErrors.CUSTOMER_NOT_FOUND.create('No such customer.', { param: 'customer_id' });
      }
      throw error;
    });
    // Held until commit: a go-live (which locks the plan FOR UPDATE) either sees this subscription
    // or has committed before its version is read, so a subscription tracking latest never misses one.
    const [plan] = isUuid(input.planId)
      ? await preparedQuery<{ status: string }>(
          this.txHost.tx,
          `SELECT status FROM plans WHERE organization_id = $1 AND workspace_id = $2 AND id = $3 AND deleted_at IS NULL FOR KEY SHARE`,
          [actor.organizationId, actor.workspaceId, input.planId],
        )
      : [];
    if (!plan) throw catalogNotFound('plan_id', 'plan');
    if (plan.status === 'archived')
      throw CatalogErrors.ENTITY_ARCHIVED.create('The plan is archived; it takes no new subscriptions.', { param: 'plan_id' });
    const version = await this.subscriptions.liveVersion(actor, input.planId, input.planVersion ?? 'head');
    if (!version) {
      throw CatalogErrors.PLAN_VERSION_NOT_LIVE.create(
        input.planVersion === undefined
          ? 'The plan has no live version yet.'
          : `Version ${input.planVersion} of the plan never went live.`,
        { param: input.planVersion === undefined ? 'plan_id' : 'plan_version' },
      );
    }
    const billingCadence = (cadenceInput as PriceCadenceUnit | undefined) ?? version.priceCadenceUnit;
    if (billingCadence !== version.priceCadenceUnit) {
      throw CatalogErrors.BILLING_CADENCE_MISMATCH.create(
        `Version ${version.version} of the plan bills per ${version.priceCadenceUnit}, not per ${billingCadence}.`,
        {
          param: 'billing_cadence',
          details: { billing_cadence: billingCadence, price_cadence_unit: version.priceCadenceUnit },
        },
      );
    }
    const invalid = await this.subscriptions.invalidPin(actor, version.id, pins);
    if (invalid) {
      throw CatalogErrors.INVALID_PIN.create(invalid.reason, {
        param: 'product_pins',
        details: { product_id: invalid.pin.productId, product_version_id: invalid.pin.productVersionId },
      });
    }
    const now = this.clock.now();
    const subscription = Subscription.start({
      organizationId: actor.organizationId,
      workspaceId: actor.workspaceId,
      customerId: input.customerId,
      planId: input.planId,
      planVersionId: version.id,
      billingCadence,
      planTrackMode,
      versionChangeStrategy: strategy,
      productPins: pins,
      currentPeriodStart: input.currentPeriodStart ?? now,
      now,
    });
    await this.subscriptions.save(subscription);
    await this.audit.record(actor, {
      action: 'subscription.created',
      resourceType: 'subscription',
      resourceId: subscription.id,
      data: { plan_id: input.planId, plan_version: version.version },
    });
    return subscription.id;
  }
}
