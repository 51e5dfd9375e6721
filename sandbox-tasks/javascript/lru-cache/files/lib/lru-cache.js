'use strict';
// A least-recently-used cache for rendered profile cards: past `capacity` entries, the one unused longest goes.

class LruCache {
  constructor(capacity) {
    this.capacity = capacity;
    this.entries = new Map();
  }

  get(key) {
    return this.entries.get(key);
  }

  set(key, value) {
    if (this.entries.size >= this.capacity) {
      const oldest = this.entries.keys().next().value;
      this.entries.delete(oldest);
    }
    this.entries.set(key, value);
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
