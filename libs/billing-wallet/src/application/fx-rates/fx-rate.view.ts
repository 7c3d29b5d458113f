import Big from 'big.js';

export interface FxRateView {
  fromCurrency: string;
  toCurrency: string;
  rate: string;
  updatedAt: Date;
}

/** An fx_rates row as read by the FX rate use cases and by transfers. */
export interface FxRateRow {
  from_currency: string;
  to_currency: string;
  rate: string;
  updated_at: Date;
}

export function toView(row: FxRateRow): FxRateView {
  return {
    fromCurrency: row.from_currency,
    toCurrency: row.to_currency,
    rate: new Big(row.rate).toFixed(),
    updatedAt: row.updated_at,
  };
}
