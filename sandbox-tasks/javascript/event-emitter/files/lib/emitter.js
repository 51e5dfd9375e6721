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
    const at = list.indexOf(listener);
    if (at !== -1) list.splice(at, 1);
    return this;
  }

  once(event, listener) {
    const wrapper = (...args) => {
      this.off(event, wrapper);
      listener(...args);
    };
    return this.on(event, wrapper);
  }

  emit(event, ...args) {
    const list = this.listeners.get(event);
    if (!list) return false;
    for (const listener of list) listener(...args);
    return true;
  }
}

module.exports = { Emitter };
