% refig's driver for one MATLAB program, under GNU Octave (gnuplot toolkit, pinned) or MATLAB.
% Reads REFIG_PROGRAM, REFIG_IMAGE, REFIG_WIDTH, REFIG_HEIGHT. Exit codes: 0 ran, 3 syntax
% error, 4 runtime error.
refig_program = getenv('REFIG_PROGRAM');
refig_image = getenv('REFIG_IMAGE');
refig_size = [str2double(getenv('REFIG_WIDTH')), str2double(getenv('REFIG_HEIGHT'))];
if exist('OCTAVE_VERSION', 'builtin')
  graphics_toolkit('gnuplot');
  warning('off', 'all');
end
set(0, 'defaultfigurevisible', 'off');
set(0, 'defaultfigureposition', [0 0 refig_size]);
try
  run(refig_program);
catch refig_err
  fprintf(2, 'error: %s\n', refig_err.message);
  if ~isempty(strfind(refig_err.message, 'parse error'))
    exit(3);
  end
  exit(4);
end
if ~isempty(get(0, 'children'))
  refig_pos = get(gcf, 'position');
  set(gcf, 'paperunits', 'inches', 'paperposition', [0 0 refig_pos(3:4) / 100]);
  print(gcf, refig_image, '-dpng', '-r100');
end
exit(0);
