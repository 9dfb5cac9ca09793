import { IsIn, IsInt, IsOptional, IsString, Length, Max, Min } from 'class-validator';

export class ForecastArgs {
  @IsString()
  @Length(1, 80)
  city: string;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(7)
  days?: number;

  @IsOptional()
  @IsIn(['metric', 'imperial'])
  units?: 'metric' | 'imperial';
}

export class ReportArgs {
  @IsInt()
  @Min(1)
  @Max(50)
  steps: number;
}
