import { DEFAULT_PLACEMENT, DEFAULT_TIME_POLICY, type JobDefinition, type TimePolicy } from './job.js';

/** A definition as stored: jobs written by older versions lack the fields added since. */
export type StoredDefinition = Omit<JobDefinition, 'policy' | 'after' | 'afterAll' | 'placement'> & {
  policy?: Partial<Omit<TimePolicy, 'misfire' | 'dst'>> & {
    misfire?: Partial<TimePolicy['misfire']>;
    dst?: Partial<TimePolicy['dst']>;
  };
  after?: JobDefinition['after'];
  afterAll?: JobDefinition['afterAll'];
  placement?: Partial<JobDefinition['placement']>;
};

/**
 * Fills what an older definition lacks with the defaults, field by field, onto the parsed object (assigning
 * is several times cheaper than spreading into a new one, and due-job loads map thousands of rows).
 */
export function withDefinitionDefaults(definition: StoredDefinition): JobDefinition {
  const stored = definition.policy;
  return Object.assign(definition, {
    policy: {
      ...DEFAULT_TIME_POLICY,
      ...stored,
      misfire: { ...DEFAULT_TIME_POLICY.misfire, ...stored?.misfire },
      dst: { ...DEFAULT_TIME_POLICY.dst, ...stored?.dst },
    },
    after: definition.after ?? [],
    afterAll: definition.afterAll ?? [],
    placement: { ...DEFAULT_PLACEMENT, ...definition.placement },
  });
}
