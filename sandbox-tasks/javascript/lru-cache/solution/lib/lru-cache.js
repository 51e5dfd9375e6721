'use strict';
// A least-recently-used cache for rendered profile cards: past `capacity` entries, the one unused longest goes.

class LruCache {
  constructor(capacity, { onEvict } = {}) {
    this.capacity = capacity;
    this.onEvict = onEvict;
    // A Map iterates in insertion order: re-inserting a key on each use keeps the least recent first.
    this.entries = new Map();
  }

  get(key) {
    if (!this.entries.has(key)) return undefined;
    const value = this.entries.get(key);
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  set(key, value) {
    if (this.capacity <= 0) return this;
    this.entries.delete(key);
    this.entries.set(key, value);
    while (this.entries.size > this.capacity) {
      const [oldestKey, oldestValue] = this.entries.entries().next().value;
      this.entries.delete(oldestKey);
      if (this.onEvict) this.onEvict(oldestKey, oldestValue);
    }
    return this;
  }

  has(key) {
    return this.entries.has(key);
  }

  delete(key) {
    return this.entries.delete(key);
  }

  get size() {
    return this.entries.size;
  }
}

module.exports = { LruCache };
