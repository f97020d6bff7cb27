// The framework's own ceiling: hapi with one route and nothing else, answering what ping answers.
import Hapi from '@hapi/hapi';

const server = Hapi.server({ port: Number(process.argv[2] ?? 0), host: '127.0.0.1' });
server.route({ method: 'GET', path: '/api/method/ping', handler: () => ({ message: 'pong' }) });
await server.start();
process.stdout.write(`listening ${server.info.port}\n`);
process.on('SIGTERM', () => void server.stop().then(() => process.exit(0)));
