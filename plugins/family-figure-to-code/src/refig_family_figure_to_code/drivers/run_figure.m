% refig's driver for MATLAB programs, under GNU Octave (gnuplot toolkit, pinned) or MATLAB.
% Cold: reads REFIG_PROGRAM, REFIG_IMAGE, REFIG_WIDTH, REFIG_HEIGHT (and REFIG_PROTOCOL:
% figcodebench prints the figure at its own size at 300 dpi, refig crops the margin) and exits with 0 ran,
% 3 syntax error, 4 runtime error. With REFIG_WARM set (Octave only) it serves jobs, one per line
% (tab-separated: directory, program, image, width, height, protocol; see below), each in a child
% forked from this loaded Octave, so each starts from the state a cold run starts from, answering
% REFIG-DONE<TAB>status: the child's exit status, as a cold run's.
1;

function refig_status = refig_job(refig_program, refig_image, refig_width, refig_height, ...
                                  refig_protocol)
  % The program runs in this function's workspace: every name here is prefixed so that none
  % shadows a function the program calls (image, status...).
  close all;
  set(0, 'defaultfigurevisible', 'off');
  refig_release = nargin > 4 && strcmp(refig_protocol, 'figcodebench');
  if ~refig_release
    set(0, 'defaultfigureposition', [0 0 refig_width refig_height]);
  end
  refig_status = 0;
  try
    run(refig_program);
  catch refig_err
    fprintf(1, 'error: %s\n', refig_err.message);
    refig_status = 4;
    % Octave prints a parse error itself; run() then fails with 'error sourcing file'.
    if ~isempty(strfind(refig_err.message, 'parse error')) || ...
       ~isempty(strfind(refig_err.message, 'error sourcing file'))
      refig_status = 3;
    end
    return;
  end
  if refig_release && ~isempty(get(0, 'children'))
    print(gcf, refig_image, '-dpng', '-r300');
  elseif ~isempty(get(0, 'children'))
    refig_pos = get(gcf, 'position');
    set(gcf, 'paperunits', 'inches', 'paperposition', [0 0 refig_pos(3:4) / 100]);
    print(gcf, refig_image, '-dpng', '-r100', ...
          sprintf('-S%d,%d', round(refig_pos(3)), round(refig_pos(4))));
  end
  close all;
end

if exist('OCTAVE_VERSION', 'builtin')
  warning('off', 'all');
  graphics_toolkit('gnuplot');
end
if isempty(getenv('REFIG_WARM'))
  exit(refig_job(getenv('REFIG_PROGRAM'), getenv('REFIG_IMAGE'), ...
                 str2double(getenv('REFIG_WIDTH')), str2double(getenv('REFIG_HEIGHT')), ...
                 getenv('REFIG_PROTOCOL')));
end
% Octave's stdin is block-buffered on a pipe, so jobs arrive as a file that is renamed into
% place (refig-queue.job in the starting directory) and removed once read.
home = pwd();
queue = fullfile(home, 'refig-queue.job');
fprintf(1, 'REFIG-READY\n');  % loaded: the first program's time starts now
fflush(stdout);
while true
  if ~exist(queue, 'file')
    pause(0.002);
    continue;
  end
  line = strtrim(fileread(queue));
  delete(queue);
  if strcmp(line, 'QUIT')
    break;
  end
  job = strsplit(line, "\t");
  pid = fork();
  if pid == 0
    % The child: its output goes to its job's log, never to the server's answers, and its
    % standard input is empty; whatever it does ends with it.
    cd(job{1});
    output = fopen('refig-output.log', 'w');
    dup2(output, stdout);
    dup2(output, stderr);
    dup2(fopen('/dev/null', 'r'), stdin);
    exit(refig_job(job{2}, job{3}, str2double(job{4}), str2double(job{5}), job{6}));
  end
  [~, ended] = waitpid(pid);
  status = 4;  % killed by a signal: the run failed
  if WIFEXITED(ended)
    status = WEXITSTATUS(ended);
  end
  fprintf(1, 'REFIG-DONE\t%d\n', status);
  fflush(stdout);
end
exit(0);
