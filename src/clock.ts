/** The current instant; injected so that tests can move time (billing periods, quota windows, expiry). */
export type Clock = () => Date;

export const systemClock: Clock = () => new Date();
