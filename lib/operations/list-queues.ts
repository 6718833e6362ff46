import { defineProcedure } from "./descriptor";

/** listQueuesAsync: the queue names in the namespace, from its registry (one SMEMBERS, no script). */
export const listQueuesOperation = defineProcedure<object, string[]>({
  // Takes no options (an object given is read for nothing).
  optionKeys: {},
  optionalOptions: true,
  prepare: () => (internals) => {
    const { registry } = internals.layout;
    return internals.command("listQueues", ["SMEMBERS", registry], registry) as Promise<string[]>;
  },
});
