import { Provider } from '@nestjs/common';
import { AdminTools } from './admin/admin.tools';
import { ApiKeyGuard } from './admin/api-key.guard';
import { NotesResources } from './notes/notes.resources';
import { NotesService } from './notes/notes.service';
import { WeatherPrompts } from './weather/weather.prompts';
import { WeatherTools } from './weather/weather.tools';

/** Everything the demo serves: weather tools and prompts, the notebook, the guarded admin tool. */
export const DEMO_PROVIDERS: Provider[] = [
  WeatherTools,
  WeatherPrompts,
  NotesService,
  NotesResources,
  AdminTools,
  ApiKeyGuard,
];
