import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Prepaid wallets on an append-only ledger. The wallet row caches the running balances of its
 * ledger lines; CHECK constraints hold what no code path may break, the partial unique index
 * holds "one primary wallet per customer", and (source, reference) makes a replay harmless.
 */
export class Wallets1763800200000 implements MigrationInterface {
  name = 'Wallets1763800200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE wallets (
        organization_id uuid NOT NULL,
        workspace_id uuid NOT NULL,
        id uuid NOT NULL,
        customer_id uuid NOT NULL,
        currency char(3) NOT NULL,
        is_primary boolean NOT NULL,
        cash_balance numeric(28, 4) NOT NULL DEFAULT 0,
        promotional_balance numeric(28, 4) NOT NULL DEFAULT 0 CHECK (promotional_balance >= 0),
        held_balance numeric(28, 4) NOT NULL DEFAULT 0 CHECK (held_balance >= 0),
        credit_limit numeric(28, 4) NOT NULL DEFAULT 0 CHECK (credit_limit >= 0),
        max_balance numeric(28, 4) CHECK (max_balance >= 0),
        max_single_credit numeric(28, 4) CHECK (max_single_credit >= 0),
        low_balance_threshold numeric(28, 4),
        auto_topup_enabled boolean NOT NULL DEFAULT false,
        auto_topup_amount numeric(28, 4) CHECK (auto_topup_amount > 0),
        auto_topup_payment_method_id text,
        version integer NOT NULL DEFAULT 1,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (organization_id, workspace_id, id),
        FOREIGN KEY (organization_id, workspace_id, customer_id) REFERENCES customers (organization_id, workspace_id, id),
        CHECK (cash_balance + promotional_balance - held_balance >= -credit_limit)
      )`);
    await q.query(`CREATE UNIQUE INDEX wallets_id_key ON wallets (id)`);
    await q.query(
      `CREATE UNIQUE INDEX wallets_one_primary_per_customer ON wallets (organization_id, workspace_id, customer_id) WHERE is_primary`,
    );
    await q.query(`CREATE INDEX wallets_list_idx ON wallets (organization_id, workspace_id, created_at DESC, id DESC)`);
    await q.query(
      `CREATE UNIQUE INDEX wallets_customer_currency_key ON wallets (organization_id, workspace_id, customer_id, currency)`,
    );

    await q.query(`
      CREATE TABLE wallet_transactions (
        organization_id uuid NOT NULL,
        workspace_id uuid NOT NULL,
        wallet_id uuid NOT NULL,
        id uuid NOT NULL,
        type text NOT NULL CHECK (type IN ('credit', 'debit', 'adjustment', 'hold_capture', 'expiry')),
        source text CHECK (source IN ('PAYMENT', 'REFUND', 'PROMOTION', 'INVOICE', 'CHARGE', 'FEE', 'MANUAL', 'TRANSFER')),
        amount numeric(28, 4) NOT NULL CHECK (amount <> 0),
        currency char(3) NOT NULL,
        cash_amount numeric(28, 4) NOT NULL,
        promotional_amount numeric(28, 4) NOT NULL,
        ending_cash_balance numeric(28, 4) NOT NULL,
        ending_promotional_balance numeric(28, 4) NOT NULL CHECK (ending_promotional_balance >= 0),
        reason text,
        reference text,
        transfer_id uuid,
        hold_id uuid,
        expires_at timestamptz,
        exchange_rate jsonb,
        funding jsonb,
        created_by_type text NOT NULL,
        created_by_id uuid,
        created_at timestamptz NOT NULL,
        PRIMARY KEY (organization_id, workspace_id, wallet_id, id),
        FOREIGN KEY (organization_id, workspace_id, wallet_id) REFERENCES wallets (organization_id, workspace_id, id),
        CHECK (amount = cash_amount + promotional_amount),
        CHECK ((type IN ('credit') AND amount > 0) OR (type IN ('debit', 'hold_capture', 'expiry') AND amount < 0) OR type = 'adjustment')
      )`);
    await q.query(`
      CREATE UNIQUE INDEX wallet_transactions_reference_key ON wallet_transactions (organization_id, workspace_id, wallet_id, source, reference)
        WHERE reference IS NOT NULL AND type IN ('credit', 'debit', 'adjustment')`);
    await q.query(
      `CREATE INDEX wallet_transactions_list_idx ON wallet_transactions (organization_id, workspace_id, wallet_id, created_at DESC, id DESC)`,
    );

    await q.query(`
      CREATE TABLE promotional_lots (
        organization_id uuid NOT NULL,
        workspace_id uuid NOT NULL,
        wallet_id uuid NOT NULL,
        id uuid NOT NULL,
        amount numeric(28, 4) NOT NULL CHECK (amount > 0),
        remaining numeric(28, 4) NOT NULL CHECK (remaining >= 0 AND remaining <= amount),
        expires_at timestamptz,
        created_at timestamptz NOT NULL,
        PRIMARY KEY (organization_id, workspace_id, wallet_id, id),
        FOREIGN KEY (organization_id, workspace_id, wallet_id) REFERENCES wallets (organization_id, workspace_id, id)
      )`);
    await q.query(
      `CREATE INDEX promotional_lots_open_idx ON promotional_lots (organization_id, workspace_id, wallet_id) WHERE remaining > 0`,
    );
    await q.query(
      `CREATE INDEX promotional_lots_expiry_idx ON promotional_lots (expires_at) WHERE remaining > 0 AND expires_at IS NOT NULL`,
    );

    await q.query(`
      CREATE TABLE wallet_holds (
        organization_id uuid NOT NULL,
        workspace_id uuid NOT NULL,
        wallet_id uuid NOT NULL,
        id uuid NOT NULL,
        amount numeric(28, 4) NOT NULL CHECK (amount > 0),
        currency char(3) NOT NULL,
        status text NOT NULL CHECK (status IN ('pending', 'captured', 'released')),
        expires_at timestamptz,
        reason text,
        reference_id text,
        reference_type text,
        reverse_charge boolean NOT NULL DEFAULT false,
        tax_rate numeric(12, 8) CHECK (tax_rate >= 0 AND tax_rate < 10),
        tax_rule_id text,
        exchange_rate_base_leg_id uuid,
        exchange_rate_id uuid,
        fx_policy_applied text,
        metric_key text,
        subscription_id uuid,
        applied_promotions jsonb,
        release_reason text CHECK (release_reason IN ('manual', 'expired', 'capture_remainder')),
        captured_amount numeric(28, 4) CHECK (captured_amount > 0 AND captured_amount <= amount),
        captured_net_amount numeric(28, 4),
        captured_tax_amount numeric(28, 4),
        capture_transaction_id uuid,
        captured_at timestamptz,
        released_at timestamptz,
        created_at timestamptz NOT NULL,
        PRIMARY KEY (organization_id, workspace_id, wallet_id, id),
        FOREIGN KEY (organization_id, workspace_id, wallet_id) REFERENCES wallets (organization_id, workspace_id, id),
        CHECK ((reference_id IS NULL) = (reference_type IS NULL)),
        CHECK ((status = 'captured') = (captured_at IS NOT NULL)),
        CHECK (status <> 'released' OR released_at IS NOT NULL)
      )`);
    await q.query(
      `CREATE INDEX wallet_holds_pending_idx ON wallet_holds (organization_id, workspace_id, wallet_id, created_at DESC) WHERE status = 'pending'`,
    );

    await q.query(`
      CREATE TABLE fx_rates (
        organization_id uuid NOT NULL REFERENCES organizations (id),
        from_currency char(3) NOT NULL,
        to_currency char(3) NOT NULL,
        rate numeric(24, 12) NOT NULL CHECK (rate > 0),
        updated_at timestamptz NOT NULL,
        updated_by_type text NOT NULL,
        updated_by_id uuid,
        PRIMARY KEY (organization_id, from_currency, to_currency),
        CHECK (from_currency <> to_currency)
      )`);

    await q.query(`
      CREATE TABLE wallet_transfers (
        organization_id uuid NOT NULL,
        workspace_id uuid NOT NULL,
        id uuid NOT NULL,
        source_wallet_id uuid NOT NULL,
        target_wallet_id uuid NOT NULL,
        amount numeric(28, 4) NOT NULL CHECK (amount > 0),
        currency char(3) NOT NULL,
        target_amount numeric(28, 4) NOT NULL CHECK (target_amount > 0),
        target_currency char(3) NOT NULL,
        exchange_rate jsonb,
        debit_transaction_id uuid NOT NULL,
        credit_transaction_id uuid NOT NULL,
        reason text,
        created_by_type text NOT NULL,
        created_by_id uuid,
        created_at timestamptz NOT NULL,
        PRIMARY KEY (organization_id, workspace_id, id),
        FOREIGN KEY (organization_id, workspace_id, source_wallet_id) REFERENCES wallets (organization_id, workspace_id, id),
        FOREIGN KEY (organization_id, workspace_id, target_wallet_id) REFERENCES wallets (organization_id, workspace_id, id),
        CHECK (source_wallet_id <> target_wallet_id),
        CHECK ((currency = target_currency) = (exchange_rate IS NULL))
      )`);

    // The FX clearing account: per transfer and currency, what it took in (+) and paid out (−),
    // so that every currency's sum over wallets and clearing stays zero for transfers.
    await q.query(`
      CREATE TABLE fx_clearing_entries (
        organization_id uuid NOT NULL,
        workspace_id uuid NOT NULL,
        transfer_id uuid NOT NULL,
        currency char(3) NOT NULL,
        amount numeric(28, 4) NOT NULL CHECK (amount <> 0),
        created_at timestamptz NOT NULL,
        PRIMARY KEY (organization_id, workspace_id, transfer_id, currency),
        FOREIGN KEY (organization_id, workspace_id, transfer_id) REFERENCES wallet_transfers (organization_id, workspace_id, id)
      )`);

    await q.query(`
      CREATE TABLE payment_methods (
        organization_id uuid NOT NULL,
        workspace_id uuid NOT NULL,
        id text NOT NULL,
        customer_id uuid NOT NULL,
        provider text NOT NULL,
        brand text NOT NULL,
        last4 char(4) NOT NULL,
        created_at timestamptz NOT NULL,
        PRIMARY KEY (organization_id, workspace_id, id),
        FOREIGN KEY (organization_id, workspace_id, customer_id) REFERENCES customers (organization_id, workspace_id, id)
      )`);

    await q.query(`
      CREATE TABLE wallet_top_ups (
        organization_id uuid NOT NULL,
        workspace_id uuid NOT NULL,
        id uuid NOT NULL,
        wallet_id uuid NOT NULL,
        mode text NOT NULL CHECK (mode IN ('hosted_checkout', 'off_session')),
        automatic boolean NOT NULL DEFAULT false,
        amount numeric(28, 4) NOT NULL CHECK (amount > 0),
        currency char(3) NOT NULL,
        status text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
        payment_method_id text,
        provider text NOT NULL,
        provider_reference text,
        checkout_url text,
        failure_code text,
        failure_message text,
        transaction_id uuid,
        created_at timestamptz NOT NULL,
        completed_at timestamptz,
        PRIMARY KEY (organization_id, workspace_id, id),
        FOREIGN KEY (organization_id, workspace_id, wallet_id) REFERENCES wallets (organization_id, workspace_id, id),
        CHECK ((status = 'succeeded') = (transaction_id IS NOT NULL)),
        CHECK ((status = 'pending') = (completed_at IS NULL))
      )`);
    await q.query(`CREATE UNIQUE INDEX wallet_top_ups_id_key ON wallet_top_ups (id)`);
    // "None while one is pending": at most one automatic top-up in flight per wallet.
    await q.query(
      `CREATE UNIQUE INDEX wallet_top_ups_one_pending_auto ON wallet_top_ups (organization_id, workspace_id, wallet_id) WHERE automatic AND status = 'pending'`,
    );

    await q.query(`
      CREATE TABLE payment_webhook_events (
        provider text NOT NULL,
        event_id text NOT NULL,
        type text NOT NULL,
        payload jsonb NOT NULL,
        received_at timestamptz NOT NULL,
        PRIMARY KEY (provider, event_id)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE payment_webhook_events`);
    await q.query(`DROP TABLE wallet_top_ups`);
    await q.query(`DROP TABLE payment_methods`);
    await q.query(`DROP TABLE fx_clearing_entries`);
    await q.query(`DROP TABLE wallet_transfers`);
    await q.query(`DROP TABLE fx_rates`);
    await q.query(`DROP TABLE wallet_holds`);
    await q.query(`DROP TABLE promotional_lots`);
    await q.query(`DROP TABLE wallet_transactions`);
    await q.query(`DROP TABLE wallets`);
  }
}
