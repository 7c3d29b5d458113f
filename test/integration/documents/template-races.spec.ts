import { CommandBus, QueryBus } from '@nestjs/cqrs';
import {
  ClearDefaultTemplateCommand,
  CreateTemplateCommand,
  DeleteTemplateCommand,
  MarkDefaultTemplateCommand,
  ResolveTemplateQuery,
  SYSTEM_TEMPLATE_IDS,
  UpdateTemplateCommand,
} from '@app/documents';
import { AuthenticateRequestQuery } from '@app/identity';
import { Actor, DomainError } from '@app/shared-kernel';
import { DataSource } from 'typeorm';
import { createTenant } from '../../support/tenants';
import { createTestApp, TestApp } from '../../support/test-app';

/**
 * Template writes racing on real PostgreSQL through the CommandBus (each command its own
 * transaction): the version-checked UPDATE lets one of N updates with the same expected_version
 * through and writes nothing for the others (no row, no audit); a default slot never names a
 * deleted template, whichever of mark-default and delete commits first; a refused publish rolls
 * back the whole update.
 */
describe('Document template writes under concurrency (PostgreSQL)', () => {
  let t: TestApp;
  let db: DataSource;
  let commands: CommandBus;
  let actor: Actor;

  beforeAll(async () => {
    t = await createTestApp();
    db = t.app.get(DataSource);
    commands = t.app.get(CommandBus);
    const tenant = await createTenant(t);
    actor = await t.app.get(QueryBus).execute(new AuthenticateRequestQuery(`Bearer ${tenant.rootKey}`, '127.0.0.1', undefined));
  });
  afterAll(() => t.close());

  const outcome = (promise: Promise<unknown>) =>
    promise.then(
      () => 'ok',
      (error: unknown) => (error instanceof DomainError ? error.code : `unexpected ${String(error)}`),
    );

  it('lets exactly one of eight updates with the same expected_version through; the others write nothing', async () => {
    const template = await commands.execute(new CreateTemplateCommand(actor, { name: 'Raced', document: undefined }));
    const id = template.template.id;
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, index) =>
        outcome(commands.execute(new UpdateTemplateCommand(actor, id, { expectedVersion: 1, name: `Writer ${index}` }))),
      ),
    );
    expect(results.filter((result) => result === 'ok')).toHaveLength(1);
    expect(results.filter((result) => result !== 'ok')).toEqual(Array(7).fill('CONFLICT'));
    const [row] = await db.query('SELECT name, version FROM document_templates WHERE id = $1', [id]);
    expect(row.version).toBe(2);
    const audits = await db.query(
      `SELECT data FROM audit_events WHERE resource_id = $1 AND action = 'document_template.updated'`,
      [id],
    );
    expect(audits).toHaveLength(1);
    expect(row.name).toMatch(/^Writer \d$/);
  });

  it('never leaves a default slot naming a deleted template, whichever of mark-default and delete wins', async () => {
    for (let round = 0; round < 15; round += 1) {
      const template = await commands.execute(new CreateTemplateCommand(actor, { name: `Slot ${round}`, document: undefined }));
      const id = template.template.id;
      const [marked, deleted] = await Promise.all([
        outcome(commands.execute(new MarkDefaultTemplateCommand(actor, id, 'invoice'))),
        outcome(commands.execute(new DeleteTemplateCommand(actor, id))),
      ]);
      expect(deleted).toBe('ok');
      expect(['ok', 'DOCUMENT_TEMPLATE_NOT_FOUND']).toContain(marked);
      const dangling = await db.query(
        `SELECT d.template_id FROM document_template_defaults d
           JOIN document_templates t ON t.organization_id = d.organization_id AND t.workspace_id = d.workspace_id AND t.id = d.template_id
          WHERE t.deleted_at IS NOT NULL`,
      );
      expect(dangling).toEqual([]);
    }
  });

  it('rolls a refused publish back whole: the template keeps its version, status and document', async () => {
    const first = await commands.execute(
      new CreateTemplateCommand(actor, { name: 'First', documentTypes: ['email'], anchorKey: 'quote.sent', document: undefined }),
    );
    const second = await commands.execute(
      new CreateTemplateCommand(actor, {
        name: 'Second',
        documentTypes: ['email'],
        anchorKey: 'quote.sent',
        document: undefined,
      }),
    );
    await commands.execute(new UpdateTemplateCommand(actor, first.template.id, { expectedVersion: 1, status: 'published' }));
    const refused = await outcome(
      commands.execute(
        new UpdateTemplateCommand(actor, second.template.id, { expectedVersion: 1, status: 'published', name: 'Renamed' }),
      ),
    );
    expect(refused).toBe('ANCHOR_ALREADY_PUBLISHED');
    const [row] = await db.query('SELECT name, status, version FROM document_templates WHERE id = $1', [second.template.id]);
    expect(row).toEqual({ name: 'Second', status: 'draft', version: 1 });
    // The partial unique index holds it even when two publishes race past the check.
    await commands.execute(new UpdateTemplateCommand(actor, first.template.id, { expectedVersion: 2, status: 'draft' }));
    const raced = await Promise.all([
      outcome(commands.execute(new UpdateTemplateCommand(actor, first.template.id, { expectedVersion: 3, status: 'published' }))),
      outcome(
        commands.execute(new UpdateTemplateCommand(actor, second.template.id, { expectedVersion: 1, status: 'published' })),
      ),
    ]);
    expect(raced.sort()).toEqual(['ANCHOR_ALREADY_PUBLISHED', 'ok']);
    const published = await db.query(
      `SELECT id FROM document_templates WHERE anchor_key = 'quote.sent' AND status = 'published' AND organization_id = $1`,
      [actor.organizationId],
    );
    expect(published).toHaveLength(1);
  });
});

describe('Resolving the template a document is rendered with', () => {
  let t: TestApp;
  let commands: CommandBus;
  let queries: QueryBus;
  let actor: Actor;

  beforeAll(async () => {
    t = await createTestApp();
    commands = t.app.get(CommandBus);
    queries = t.app.get(QueryBus);
    const tenant = await createTenant(t);
    actor = await queries.execute(new AuthenticateRequestQuery(`Bearer ${tenant.rootKey}`, '127.0.0.1', undefined));
  });
  afterAll(() => t.close());

  const resolved = async (documentType: string) =>
    (await queries.execute(new ResolveTemplateQuery(actor, documentType))).template.id;

  it('uses the slot’s holder, and falls back to the system default once the slot is cleared or its holder goes', async () => {
    expect(await resolved('invoice')).toBe(SYSTEM_TEMPLATE_IDS.invoice);
    const mine = (await commands.execute(new CreateTemplateCommand(actor, { name: 'Mine', document: undefined }))).template.id;
    await commands.execute(new MarkDefaultTemplateCommand(actor, mine, 'invoice'));
    expect(await resolved('invoice')).toBe(mine);
    expect(await resolved('quote')).toBe(SYSTEM_TEMPLATE_IDS.quote);
    await commands.execute(new ClearDefaultTemplateCommand(actor, mine, 'invoice'));
    expect(await resolved('invoice')).toBe(SYSTEM_TEMPLATE_IDS.invoice);
    await commands.execute(new MarkDefaultTemplateCommand(actor, mine, 'invoice'));
    await commands.execute(new DeleteTemplateCommand(actor, mine));
    expect(await resolved('invoice')).toBe(SYSTEM_TEMPLATE_IDS.invoice);
  });

  it('uses the published e-mail of a mail kind, else the system one', async () => {
    const system = await resolved('email:invoice.finalized');
    expect(system).toBe('00000000-0000-4000-8000-000000000101');
    const mail = await commands.execute(
      new CreateTemplateCommand(actor, {
        name: 'Mail',
        documentTypes: ['email'],
        anchorKey: 'invoice.finalized',
        document: undefined,
      }),
    );
    expect(await resolved('email:invoice.finalized')).toBe(system);
    await commands.execute(new UpdateTemplateCommand(actor, mail.template.id, { expectedVersion: 1, status: 'published' }));
    expect(await resolved('email:invoice.finalized')).toBe(mail.template.id);
    await expect(resolved('receipt')).rejects.toThrow(/Unknown document type/);
  });
});
