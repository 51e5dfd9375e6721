/** Every workflow the worker runs; the worker bundles this module for the Temporal sandbox. */
export {};
