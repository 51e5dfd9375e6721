// Matching request paths to the service's routes, such as /users/:id.

/** The parameters of `path` when it fits `pattern`, or null. */
export function matchRoute(pattern, path) {
  const patternParts = pattern.split('/');
  const pathParts = path.split('/');
  const params = {};
  for (let i = 0; i < patternParts.length; i++) {
    const part = patternParts[i];
    if (part.startsWith(':')) params[part.slice(1)] = pathParts[i];
    else if (part !== pathParts[i]) return null;
  }
  return params;
}

/** routes: [pattern, handler] pairs, tried in order. */
export function createRouter(routes) {
  return {
    resolve(path) {
      for (const [pattern, handler] of routes) {
        const params = matchRoute(pattern, path);
        if (params) return { handler, params };
      }
      return null;
    },
  };
}
