/** Updates of the delivery workflow; the API sends them, the workflow handles them. */
import { defineUpdate } from '@temporalio/workflow';
import type { DeliveryOutcome, PullResult } from './contracts';

/** A pull runner's result. Refused (validator) when the item expired, was cancelled or already got a different result. */
export const submitResult = defineUpdate<DeliveryOutcome, [PullResult]>('submitResult');

/** An owner cancels a sandbox task. Refused when it has already ended. */
export const cancelDelivery = defineUpdate<DeliveryOutcome, []>('cancelDelivery');
