// Matching request paths to the service's routes, such as /users/:id.

/** The path's segments, without its query string, fragment, and leading or trailing slashes. */
function segments(path) {
  const bare = path.replace(/[?#][\s\S]*$/, '').replace(/^\/+|\/+$/g, '');
  return bare === '' ? [] : bare.split('/');
}

function decode(segment) {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

/** The parameters of `path` when it fits `pattern`, or null. */
export function matchRoute(pattern, path) {
  const wanted = segments(pattern);
  const given = segments(path);
  const params = {};
  for (let i = 0; i < wanted.length; i++) {
    const part = wanted[i];
    if (part === '*' && i === wanted.length - 1) {
      const rest = given.slice(i).map(decode);
      if (rest.length === 0 || rest.some((segment) => segment === null || segment === '')) return null;
      params['*'] = rest.join('/');
      return params;
    }
    const segment = given[i];
    if (segment === undefined) return null;
    if (part.startsWith(':')) {
      const value = decode(segment);
      if (value === null || value === '') return null;
      params[part.slice(1)] = value;
    } else if (part !== segment) return null;
  }
  return given.length === wanted.length ? params : null;
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
