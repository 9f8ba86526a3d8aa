import { afterEach, beforeEach, describe } from 'vitest';
import type { Store } from '../../src/store/store.js';
import { describeApiTokenCases } from './conformance/api-tokens.js';
import { describeAuditAndFenceCases } from './conformance/audit-and-fence.js';
import { describeDependencyCases } from './conformance/dependencies.js';
import { describeEventCases } from './conformance/events.js';
import { describeFireBatchCases } from './conformance/fire-batches.js';
import { describeJobListingCases } from './conformance/job-listing.js';
import { describeJobCases } from './conformance/jobs.js';
import { describeLedgerCases } from './conformance/ledger.js';
import { describeNotificationCases } from './conformance/notifications.js';
import { describeOverlapCases } from './conformance/overlap.js';
import { describeRunEndBatchCases } from './conformance/run-end-batches.js';
import { describeRunCases } from './conformance/runs.js';
import { describeSchedulingCases } from './conformance/scheduling.js';

export interface StoreUnderTest {
  store: Store;
  cleanup: () => Promise<void>;
}

/** The behaviour every Store adapter must share; each test gets a fresh, empty store. */
export function describeStoreConformance(name: string, makeStore: () => Promise<StoreUnderTest>): void {
  describe(`${name} store conformance`, () => {
    let current: StoreUnderTest | undefined;

    beforeEach(async () => {
      current = await makeStore();
    });

    afterEach(async () => {
      await current?.cleanup();
      current = undefined;
    });

    const store = (): Store => {
      if (!current) throw new Error('the store is only there inside a test');
      return current.store;
    };

    describeJobCases(store);
    describeJobListingCases(store);
    describeSchedulingCases(store);
    describeFireBatchCases(store);
    describeOverlapCases(store);
    describeRunCases(store);
    describeRunEndBatchCases(store);
    describeAuditAndFenceCases(store);
    describeLedgerCases(store);
    describeDependencyCases(store);
    describeNotificationCases(store);
    describeEventCases(store);
    describeApiTokenCases(store);
  });
}
