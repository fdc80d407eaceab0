// Preloaded with `node --import` by the interop tests: a server that calls listen(port) with no
// host (server-everything's Streamable HTTP transport does) would otherwise bind every interface.
// This makes such calls bind 127.0.0.1 only; calls that name a host or a path are left alone.
import net from "node:net";

const listen = net.Server.prototype.listen;

net.Server.prototype.listen = function (...args) {
  const [port, host] = args;
  const isPort = typeof port === "number" || (typeof port === "string" && /^\d+$/.test(port));
  if (isPort && typeof host !== "string") {
    args.splice(1, 0, "127.0.0.1");
  }
  return listen.apply(this, args);
};
