import { eventBusContract } from '../contracts/event-bus.contract';
import { InMemoryEventBus } from './in-memory-event.bus';

eventBusContract([
  [
    'InMemoryEventBus',
    async () => {
      const bus = new InMemoryEventBus();
      return { here: bus, there: bus };
    },
  ],
]);
