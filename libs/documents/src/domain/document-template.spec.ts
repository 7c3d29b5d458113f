import { DomainError } from '@app/shared-kernel';
import { DocumentTemplate, TemplateKind, TemplateStatus, TRANSITIONS } from './document-template';
import { systemTemplate, SYSTEM_TEMPLATE_IDS, SYSTEM_TEMPLATES } from './system-templates';

const now = new Date('2026-11-01T00:00:00.000Z');
const later = new Date('2026-11-02T00:00:00.000Z');
const tenant = { organizationId: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d01', workspaceId: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d02' };
const layout = () => structuredClone(SYSTEM_TEMPLATES[0].document);
const mail = () => structuredClone(systemTemplate('00000000-0000-4000-8000-000000000101')!.document);

function printed(types: unknown = ['invoice', 'quote']) {
  return DocumentTemplate.create({
    ...tenant,
    name: 'Layout',
    description: null,
    documentTypes: types,
    anchorKey: undefined,
    document: layout(),
    now,
  });
}

function email() {
  return DocumentTemplate.create({
    ...tenant,
    name: 'Mail',
    description: null,
    documentTypes: ['email'],
    anchorKey: 'invoice.finalized',
    document: mail(),
    now,
  });
}

function codeOf(action: () => unknown): string {
  try {
    action();
  } catch (error) {
    return `${(error as DomainError).code}${(error as DomainError).errors ? ` ${(error as DomainError).errors![0].code}` : ''}`;
  }
  return 'accepted';
}

describe('DocumentTemplate', () => {
  it('starts printed templates active and e-mail templates as drafts, at version 1', () => {
    expect(printed().snapshot).toEqual(
      expect.objectContaining({ kind: 'printed', status: 'active', version: 1, documentTypes: ['invoice', 'quote'] }),
    );
    expect(email().snapshot).toEqual(expect.objectContaining({ kind: 'email', status: 'draft', anchorKey: 'invoice.finalized' }));
    expect(printed(['quote', 'invoice', 'quote']).snapshot.documentTypes).toEqual(['invoice', 'quote']);
  });

  it.each<[TemplateKind, TemplateStatus, TemplateStatus, boolean]>(
    (['printed', 'email'] as TemplateKind[]).flatMap((kind) =>
      (['active', 'archived', 'draft', 'published'] as TemplateStatus[]).flatMap((from) =>
        (['active', 'archived', 'draft', 'published'] as TemplateStatus[])
          .filter(() => TRANSITIONS[kind][from] !== undefined)
          .map((to): [TemplateKind, TemplateStatus, TemplateStatus, boolean] => [
            kind,
            from,
            to,
            from === to || TRANSITIONS[kind][from]!.includes(to),
          ]),
      ),
    ),
  )('%s: %s → %s allowed: %s', (kind, from, to, allowed) => {
    const template = kind === 'printed' ? printed() : email();
    const path: Record<TemplateStatus, TemplateStatus[]> = {
      active: [],
      draft: [],
      archived: kind === 'printed' ? ['archived'] : ['archived'],
      published: ['published'],
    };
    for (const step of path[from]) template.revise({ status: step }, now);
    expect(template.snapshot.status).toBe(from);
    expect(codeOf(() => template.revise({ status: to }, later))).toBe(allowed ? 'accepted' : 'INVALID_STATUS_TRANSITION');
  });

  it('documents exactly the transitions of the contract', () => {
    expect(TRANSITIONS).toEqual({
      printed: { active: ['archived'], archived: ['active'] },
      email: { draft: ['published', 'archived'], published: ['draft', 'archived'], archived: ['draft'] },
    });
  });

  it('bumps the version on every revision and keeps what the revision omits', () => {
    const template = printed();
    template.revise({ name: 'Renamed' }, later);
    expect(template.snapshot).toEqual(
      expect.objectContaining({ name: 'Renamed', version: 2, updatedAt: later, documentTypes: ['invoice', 'quote'] }),
    );
  });

  it('releases the default slots a revision makes it unable to hold', () => {
    expect(printed().revise({ documentTypes: ['quote'] }, later)).toEqual(['invoice']);
    expect(printed().revise({ status: 'archived' }, later)).toEqual(['invoice', 'quote']);
    expect(printed().revise({ name: 'x' }, later)).toEqual([]);
  });

  it('keeps a template’s kind and validates its document against its kind', () => {
    expect(codeOf(() => printed().revise({ documentTypes: ['email'] }, later))).toBe('VALIDATION_ERROR KIND_IMMUTABLE');
    expect(codeOf(() => email().revise({ documentTypes: ['invoice'] }, later))).toBe('VALIDATION_ERROR KIND_IMMUTABLE');
    expect(codeOf(() => email().revise({ document: layout() }, later))).toBe('VALIDATION_ERROR REQUIRED');
    expect(codeOf(() => printed().revise({ document: mail() }, later))).toBe('VALIDATION_ERROR NOT_ALLOWED');
    expect(codeOf(() => printed(['invoice', 'email']))).toBe('VALIDATION_ERROR INVALID_VALUE');
    expect(codeOf(() => printed([]))).toBe('VALIDATION_ERROR INVALID_VALUE');
  });

  it('refuses to change or delete a system template, and copies it into a writable template of the workspace', () => {
    const system = DocumentTemplate.restore(systemTemplate(SYSTEM_TEMPLATE_IDS.invoice)!);
    expect(codeOf(() => system.revise({ name: 'x' }, later))).toBe('SYSTEM_TEMPLATE_READ_ONLY');
    expect(codeOf(() => system.softDelete(later))).toBe('SYSTEM_TEMPLATE_READ_ONLY');
    const copy = system.copyInto(tenant, undefined, later);
    expect(copy.snapshot).toEqual(
      expect.objectContaining({
        ...tenant,
        name: 'Copy of Standard invoice',
        isSystem: false,
        copiedFromId: SYSTEM_TEMPLATE_IDS.invoice,
        version: 1,
      }),
    );
    expect(copy.snapshot.document).toEqual(system.snapshot.document);
    expect(copy.snapshot.document).not.toBe(system.snapshot.document);
  });

  it('holds a default slot only for its own document types and while not archived', () => {
    const template = printed(['invoice']);
    expect(codeOf(() => template.assertCanBeDefaultFor('invoice'))).toBe('accepted');
    expect(codeOf(() => template.assertCanBeDefaultFor('quote'))).toBe('DEFAULT_NOT_ALLOWED');
    template.revise({ status: 'archived' }, later);
    expect(codeOf(() => template.assertCanBeDefaultFor('invoice'))).toBe('DEFAULT_NOT_ALLOWED');
  });
});
