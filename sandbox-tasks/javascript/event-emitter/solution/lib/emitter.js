'use strict';
// A small event emitter through which the editor's plugins talk.

class Emitter {
  constructor() {
    this.listeners = new Map();
  }

  on(event, listener) {
    if (!this.listeners.has(event)) this.listeners.set(event, []);
    this.listeners.get(event).push(listener);
    return this;
  }

  off(event, listener) {
    const list = this.listeners.get(event);
    if (!list) return this;
    // A once listener is registered as a wrapper that remembers the function it was given.
    const at = list.findIndex((entry) => entry === listener || entry.listener === listener);
    if (at !== -1) list.splice(at, 1);
    if (list.length === 0) this.listeners.delete(event);
    return this;
  }

  once(event, listener) {
    const wrapper = (...args) => {
      this.off(event, wrapper);
      listener(...args);
    };
    wrapper.listener = listener;
    return this.on(event, wrapper);
  }

  emit(event, ...args) {
    const list = this.listeners.get(event);
    if (!list || list.length === 0) return false;
    // A copy: listeners that add or remove listeners must not change who hears this event.
    for (const listener of [...list]) listener(...args);
    return true;
  }
}

module.exports = { Emitter };
