import { FieldError } from '@app/shared-kernel';
import { placeholders, replacePlaceholders } from './placeholders';

/** Locales the catalog is written in; anything else falls back to English. */
export const LOCALES = ['en', 'de', 'fr'] as const;
export type Locale = (typeof LOCALES)[number];

type Localized = Record<Locale, string>;

export interface EmailVariable {
  name: string;
  description: Localized;
  /** The value used by previews and sample renders. */
  example: string;
}

export interface EmailKind {
  anchorKey: string;
  name: Localized;
  variables: EmailVariable[];
}

const v = (name: string, example: string, en: string, de: string, fr: string): EmailVariable => ({
  name,
  example,
  description: { en, de, fr },
});

const CUSTOMER = v('customer.name', 'Acme Corporation', 'Customer name', 'Name des Kunden', 'Nom du client');
const ORGANIZATION = v(
  'organization.name',
  'Northwind Analytics GmbH',
  'Your company name',
  'Name Ihres Unternehmens',
  'Nom de votre entreprise',
);

/** The mail kinds an e-mail template can be written for, with the variables each offers. */
export const EMAIL_KINDS: readonly EmailKind[] = [
  {
    anchorKey: 'invoice.finalized',
    name: { en: 'Invoice finalized', de: 'Rechnung finalisiert', fr: 'Facture finalisée' },
    variables: [
      CUSTOMER,
      ORGANIZATION,
      v('invoice.number', 'INV-2026-0042', 'Invoice number', 'Rechnungsnummer', 'Numéro de facture'),
      v('invoice.total', '€1,428.00', 'Invoice total with currency', 'Rechnungsbetrag mit Währung', 'Total de la facture'),
      v('invoice.due_date', '15 December 2026', 'Due date', 'Fälligkeitsdatum', 'Date d’échéance'),
      v(
        'invoice.url',
        'https://billing.example/i/INV-2026-0042',
        'Link to the invoice',
        'Link zur Rechnung',
        'Lien vers la facture',
      ),
    ],
  },
  {
    anchorKey: 'invoice.payment_failed',
    name: { en: 'Invoice payment failed', de: 'Zahlung der Rechnung fehlgeschlagen', fr: 'Échec du paiement de la facture' },
    variables: [
      CUSTOMER,
      ORGANIZATION,
      v('invoice.number', 'INV-2026-0042', 'Invoice number', 'Rechnungsnummer', 'Numéro de facture'),
      v('invoice.amount_due', '€1,428.00', 'Amount still due', 'Offener Betrag', 'Montant restant dû'),
      v(
        'payment.failure_reason',
        'Your card was declined.',
        'Why the payment failed',
        'Grund des Fehlschlags',
        'Motif de l’échec',
      ),
      v(
        'invoice.url',
        'https://billing.example/i/INV-2026-0042',
        'Link to the invoice',
        'Link zur Rechnung',
        'Lien vers la facture',
      ),
    ],
  },
  {
    anchorKey: 'credit_note.created',
    name: { en: 'Credit note created', de: 'Gutschrift erstellt', fr: 'Avoir créé' },
    variables: [
      CUSTOMER,
      ORGANIZATION,
      v('credit_note.number', 'CN-2026-0007', 'Credit note number', 'Gutschriftsnummer', 'Numéro de l’avoir'),
      v('credit_note.total', '€238.00', 'Credit note total', 'Gutschriftsbetrag', 'Montant de l’avoir'),
      v('invoice.number', 'INV-2026-0042', 'Invoice credited', 'Gutgeschriebene Rechnung', 'Facture créditée'),
    ],
  },
  {
    anchorKey: 'quote.sent',
    name: { en: 'Quote sent', de: 'Angebot versendet', fr: 'Devis envoyé' },
    variables: [
      CUSTOMER,
      ORGANIZATION,
      v('quote.number', 'Q-2026-0113', 'Quote number', 'Angebotsnummer', 'Numéro du devis'),
      v('quote.total', '€5,950.00', 'Quote total', 'Angebotssumme', 'Total du devis'),
      v('quote.expires_at', '31 December 2026', 'Valid until', 'Gültig bis', 'Valable jusqu’au'),
      v(
        'quote.url',
        'https://billing.example/q/Q-2026-0113',
        'Link to accept the quote',
        'Link zur Annahme',
        'Lien pour accepter le devis',
      ),
    ],
  },
  {
    anchorKey: 'wallet.low_balance',
    name: { en: 'Wallet balance low', de: 'Guthaben niedrig', fr: 'Solde du portefeuille faible' },
    variables: [
      CUSTOMER,
      ORGANIZATION,
      v('wallet.balance', '€18.40', 'Available balance', 'Verfügbares Guthaben', 'Solde disponible'),
      v('wallet.threshold', '€20.00', 'Low-balance threshold', 'Schwellenwert', 'Seuil d’alerte'),
      v('wallet.currency', 'EUR', 'Wallet currency', 'Währung', 'Devise'),
    ],
  },
  {
    anchorKey: 'wallet.top_up_succeeded',
    name: { en: 'Wallet top-up succeeded', de: 'Aufladung erfolgreich', fr: 'Rechargement réussi' },
    variables: [
      CUSTOMER,
      ORGANIZATION,
      v('top_up.amount', '€100.00', 'Amount topped up', 'Aufgeladener Betrag', 'Montant rechargé'),
      v('wallet.balance', '€118.40', 'Balance after the top-up', 'Guthaben nach der Aufladung', 'Solde après rechargement'),
      v('wallet.currency', 'EUR', 'Wallet currency', 'Währung', 'Devise'),
    ],
  },
];

const BY_KEY = new Map(EMAIL_KINDS.map((kind) => [kind.anchorKey, kind]));

export function emailKind(anchorKey: string): EmailKind | undefined {
  return BY_KEY.get(anchorKey);
}

export function anchorKeys(): string[] {
  return EMAIL_KINDS.map((kind) => kind.anchorKey);
}

/**
 * The best supported locale of an Accept-Language header (q-values honoured, region subtags
 * ignored: `de-AT` reads German); English when none is supported.
 */
export function negotiateLocale(header: string | undefined): Locale {
  if (!header) return 'en';
  const ranked = header
    .split(',')
    .map((part, index) => {
      const [tag, ...params] = part.trim().split(';');
      const q = params.map((param) => /^\s*q=([0-9.]+)\s*$/.exec(param)?.[1]).find((value) => value !== undefined);
      return { language: tag.trim().toLowerCase().split('-')[0], q: q === undefined ? 1 : Number(q), index };
    })
    .filter((entry) => Number.isFinite(entry.q) && entry.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  for (const { language } of ranked) if ((LOCALES as readonly string[]).includes(language)) return language as Locale;
  return 'en';
}

/** The `{{ variable }}` names a text uses; an unbalanced brace pair is a syntax error. */
export function checkVariables(text: string, kind: EmailKind, param: string): FieldError[] {
  const errors: FieldError[] = [];
  const stripped = replacePlaceholders(text, () => '');
  if (stripped.includes('{{') || stripped.includes('}}')) {
    errors.push({
      param,
      code: 'INVALID_SYNTAX',
      message: 'has an unbalanced {{ or }}; write variables as {{ customer.name }}.',
    });
  }
  const known = new Set(kind.variables.map((variable) => variable.name));
  for (const { name } of placeholders(text)) {
    if (!known.has(name)) {
      errors.push({
        param,
        code: 'UNKNOWN_VARIABLE',
        message: `uses {{ ${name} }}, which ${kind.anchorKey} does not offer; it offers ${[...known].join(', ')}.`,
      });
    }
  }
  return errors;
}

/** Replaces each `{{ variable }}` by its value, passed through `escape` (HTML) or as is (plain text). */
export function substitute(text: string, values: Record<string, string>, escape: (value: string) => string = (x) => x): string {
  return replacePlaceholders(text, (name) => escape(values[name] ?? ''));
}

export function exampleValues(kind: EmailKind): Record<string, string> {
  return Object.fromEntries(kind.variables.map((variable) => [variable.name, variable.example]));
}
