import type { ModelRates } from './config-documents.js';

/** One of gw's own price rows (catalogue-prices.ts): a model's token rates and where they were read. */
export interface CataloguePriceRow {
  provider: string;
  model: string;
  rates: ModelRates;
  /** The page the price was read from: the provider's own, unless `secondary` says otherwise. */
  source: string;
  /**
   * Set when `source` is a third party's page (a price tracker, another gateway's docs) that states the provider's
   * rate because no page of the provider's could be read: which page it is and the date it gives (or that it gives none).
   */
  secondary?: string;
  /** The day the row was written from that page (YYYY-MM-DD): a row older than the provider's last change is stale. */
  written: string;
  /**
   * Set when the rate is an estimate: no page of the provider's that could be read gave it, and `source` is only
   * where it should be checked. Says why and what a check did confirm (absent: the rate was read on `source`).
   * Re-check such rows first.
   */
  estimate?: string;
}
