/** The node-style callback of rsmq's API. */

/** Node-style callback, as rsmq uses: `err` is null on success. */
export type Callback<T> = (err: any, response: T) => void;
