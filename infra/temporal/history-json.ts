/**
 * Workflow histories to and from Temporal's proto JSON (the format of `temporal workflow show
 * --output json` and of the Web UI's download), for the saved histories that the replay tests read.
 *
 * `historyToJSON` / `historyFromJSON` of `@temporalio/common/lib/proto-utils` would do this, but in
 * this install they throw "type must be a Type": npm cannot hoist protobufjs 8 (the top level holds
 * protobufjs 7 for @grpc/proto-loader), so @temporalio/common and @temporalio/proto each get their
 * own copy, and common's ProtoJSON code rejects the History type built by proto's copy. Here the
 * ProtoJSON code is taken from the very copy of protobufjs that @temporalio/proto uses.
 */
import path from 'node:path';
import * as proto from '@temporalio/proto';
import { patchProtobufRoot } from '@temporalio/proto/lib/patch-protobuf-root';

export type History = proto.temporal.api.history.v1.IHistory;

interface ProtoJson {
  toJson(type: unknown, message: unknown): unknown;
  fromJson(type: unknown, json: unknown, options?: { ignoreUnknownFields?: boolean }): unknown;
}

const protojson: ProtoJson = require(
  require.resolve('protobufjs/ext/protojson', { paths: [path.dirname(require.resolve('@temporalio/proto'))] }),
);
const historyType = (patchProtobufRoot(proto) as unknown as { lookupType(name: string): unknown }).lookupType(
  'temporal.api.history.v1.History',
);

/** A history (as `fetchHistory()` returns it) as a proto JSON value. */
export function historyToJson(history: History): unknown {
  return protojson.toJson(historyType, proto.temporal.api.history.v1.History.fromObject(history));
}

/** A proto JSON history back to the History message `Worker.runReplayHistories` takes. */
export function historyFromJson(json: unknown): History {
  if (typeof json !== 'object' || json === null || !Array.isArray((json as { events?: unknown }).events)) {
    throw new TypeError('not a workflow history: expected an object with an array of events');
  }
  return protojson.fromJson(historyType, json, { ignoreUnknownFields: true }) as History;
}
