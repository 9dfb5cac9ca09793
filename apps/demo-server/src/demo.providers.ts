import { Provider } from '@nestjs/common';
import { AdminTools } from './admin/admin.tools';
import { ApiKeyGuard } from './admin/api-key.guard';
import { NotesResources } from './notes/notes.resources';
import { NotesService } from './notes/notes.service';
import { NotesTools } from './notes/notes.tools';
import { ScopedAdminTools, ScopedNotesResources, ScopedNotesTools } from './oauth/scoped.providers';
import { WeatherPrompts } from './weather/weather.prompts';
import { WeatherTools } from './weather/weather.tools';

/** Everything the demo serves: weather tools and prompts, the notebook, the guarded admin tool. */
export const DEMO_PROVIDERS: Provider[] = [
  WeatherTools,
  WeatherPrompts,
  NotesService,
  NotesResources,
  NotesTools,
  AdminTools,
  ApiKeyGuard,
];

/** The same behind OAuth (`npm run start:oauth`): the notebook and the admin tool need scopes; the weather does not. */
export const OAUTH_DEMO_PROVIDERS: Provider[] = [
  WeatherTools,
  WeatherPrompts,
  NotesService,
  ScopedNotesResources,
  ScopedNotesTools,
  ScopedAdminTools,
  ApiKeyGuard,
];
