package mentions

import "strings"

// wordSet makes a set of the space-separated words of s.
func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// ambiguous are words of everyday English, and generic words of software,
// that are also the names of libraries ("react", "express", "next",
// "flask", "requests"; among WellKnown's, also "cobra", "viper", "bevy",
// "tailwind", "storybook", "playwright", "mongoose", "svelte", "clap",
// "testify" and "anthropic") or could be a catalog's alias ("widgets",
// "cli").
// Written bare in prose, such a name only counts with corroboration (see
// mentionCounts). Compared in compact form (lower case, letters and digits).
var ambiguous = wordSet(`
a about above act action active add after again against age ago ahead air all alpine also always amber an and angular anthropic any
apollo app apps arrow as ask assert astro at atlas attr audio auth away axe
back backbone base basic be beam before begin being bell below best better between bevy big black blade block blue body bolt
book boost both bottle box brain branch brave bridge bright bring broker brush build bun but button by
cache cake call can canvas card care carry case cast catch celery chai chain change channel chart chi chip
choice circle clap class clean clear click client clip clock close cloud cobra code coffee color come commander common compass
config console const content context control cool copy core cors could count cover craft create cross crypto cup
cypress dash data date day debug deep default delta design desk diesel dim direct do docs dom done dot double down
drift drizzle drop dust each early echo edge either electron element else ember empty end engine enter enzyme
even event ever every express extra eye fabric fake far fast feather fetch fiber field file fill find fire first
flag flash flask flat flex flow fly focus fog follow for form format forms frame free fresh from full fun
gatsby gin give glad glass glide global go gold good got grape graph gravity great green grid group grunt guard gulp
hammer hand happy hapi hard has have he heart helmet hello help her here hero hint his hold home hook hooks hot how http
hub humps i icon icons idea if image immer in ink input inquirer into io iron is it its jest joi jump just
keep key kind kit knex koa lamp last later layout lead leaf less let level light like line link lint list little
live load local lock log logo long look loop lost low luxon magic main make mantine many map mark marked mask match
may me mesh meta meteor micro might mint mirror mix mocha mode model moment mongoose moon more morgan most motion move much
must my name native near need nest net new news next nice night no node none nose not note now null
oak object of off ok on once one only open or orbit order ore other our out over pace pack page paint pair
pandas panel paper parcel park part pass passport path peak pen pick piece pilot pine pino pipe pixel place plain plan
plane plate play playwright please plot plug plus pocket point polar pool pop port post power press pretty prime prism probe
prop proxy pug pulse pump pure push put query queue quick quill race rails rain range rate raw reach react read real
record red redis remix render request requests rest rich ride ring rise river road rock rocket rollup room root
rope rose round route router rule run rush safe sail salt same sand save say scale scan scope screen sea seal see
select send serve server set shadow shape share sharp shell shield ship short should show side sight sign signal
silk simple site size sketch sky slate sleep slick slide slim slot small smart smooth snap snow so socket solid some
sort sound source spark speed spin spring stack stage star start state step still stone stop store storm story storybook stream
strict strong style such sun super sure svelte swift switch table tag tailwind take tape task team tell test testify text than that the
their them then there these they thing this those thread three through tide time tiny to today token tool top
torch touch tower trace track trail train transformers tree trigger trim true trust try turbo turn twig type ui
under unit up upper us use utils valid value vapor vector very view vine viper vision visual voice wait walk want
warm was watch water wave way we web well were what when where which while white who why wide widget widgets will
wind wing wire wise with wood word work worker would wrap yarn yes yet yield you your zap zen zero zone
api cli sdk orm db sql json xml yaml csv html css js ts ui ux os sys fs fmt io url uri
`)

// techNouns are words that, right after a bare ambiguous name, show it is
// meant as software: "react hooks", "express middleware", "next config".
var techNouns = wordSet(`
hook hooks component components middleware middlewares router routers routing route routes app apps application
server servers worker workers config configuration configs plugin plugins project projects library lib framework
package module modules docs documentation api apis cli template templates schema schemas
client clients sdk integration setup installation example examples tutorial context provider providers
store native dom js ts devtools extension extensions orm model models endpoint endpoints view views controller
controllers blueprint blueprints decorator decorators dependency dependencies build bundler dev tsx jsx props
useeffect usestate usememo usecallback useref query queries mutation mutations websocket websockets
deployment starter boilerplate codebase repo repository typings types sandbox playground
`)

// cueBefore are words that, right before a bare ambiguous name, show it is
// meant as software: "using react", "in react", "migrate express".
var cueBefore = wordSet(`
using use uses with in into via install installing installed import importing imported migrate migrating
migrated upgrade upgrading upgraded downgrade downgrading vs versus
`)

// verbBefore are words after which a bare ambiguous name is a verb, not
// a library: "to express", "we react". ("a"/"an" are determiners: "a
// click handler" is a common noun, "a flask blueprint" the library.)
var verbBefore = wordSet(`
to will would can could should must may might shall i we you they he she it who that which
dont didnt doesnt wont cant cannot couldnt shouldnt wouldnt lets please not never always often quickly t ll d
`)

// determiners make the next word a common noun ("the next 5 minutes",
// "the next day") unless a word of software follows ("my express
// middleware").
var determiners = wordSet(`the a an this that these those my our your their his her its every each any some no`)

// weakAfter are words after which a bare ambiguous name in lower case is a
// verb: "express my concern", "react to it". A capitalized name in
// mid-sentence still counts ("use React to fetch data").
var weakAfter = wordSet(`
my our your their his her its the a an this that these those it them us me him something everything anything nothing
to against upon about
`)

// strongAfter are words after which an ambiguous name is a common word
// however it is written: "next steps", "Next week", "express concern".
var strongAfter = wordSet(`
interest concern concerns gratitude thanks feelings doubts
step steps time times week weeks month months year years day days one ones few page pages line lines item items
call calls iteration round phase stage level part chapter section question questions thing things morning weekend
sprint meeting person people player turn move door task tasks build builds release releases version versions run runs
session sessions batch update updates
`)

// proseStop ends the arguments of a package-manager command written in a
// sentence ("run npm install react-query and then restart"). Determiners
// are skipped instead (see skipInProse).
var proseStop = wordSet(`
and or then but to with in on for from so because which that it is are was were be been if when after before
while since until unless fails fail failed failing works work worked working doesnt does did not throws throw
threw gives give gave returns return error errors errored keeps hangs hung crashes crashed says said shows showed
still again now first globally locally properly correctly package packages library libraries module modules
dependency dependencies command commands version versions but however instead too also here there this these
those gets got what why how where who hangs breaks broke succeeds succeeded completes completed runs ran
`)

// skipInProse are words skipped among a command's arguments in a sentence
// ("pip install the requests library").
var skipInProse = wordSet(`the a an`)

// Standard libraries and language built-ins: never a library to look up.

// pythonStdlib are the top-level modules of Python's standard library (and
// Python's own tooling, which no prompt means as a library).
var pythonStdlib = wordSet(`
__future__ __main__ _thread abc aifc argparse array ast asynchat asyncio asyncore atexit audioop base64 bdb binascii
bisect builtins bz2 calendar cgi cgitb chunk cmath cmd code codecs codeop collections colorsys compileall concurrent
configparser contextlib contextvars copy copyreg cprofile crypt csv ctypes curses dataclasses datetime dbm decimal
difflib dis distutils doctest email encodings ensurepip enum errno faulthandler fcntl filecmp fileinput fnmatch
fractions ftplib functools gc getopt getpass gettext glob graphlib grp gzip hashlib heapq hmac html http idlelib imaplib
imghdr imp importlib inspect io ipaddress itertools json keyword lib2to3 linecache locale logging lzma mailbox
mailcap marshal math mimetypes mmap modulefinder msvcrt multiprocessing netrc nis nntplib ntpath numbers operator
optparse os ossaudiodev pathlib pdb pickle pickletools pipes pkgutil platform plistlib poplib posix posixpath pprint
profile pstats pty pwd py_compile pyclbr pydoc queue quopri random re readline reprlib resource rlcompleter runpy
sched secrets select selectors shelve shlex shutil signal site smtpd smtplib sndhdr socket socketserver spwd sqlite3
ssl stat statistics string stringprep struct subprocess sunau symtable sys sysconfig syslog tabnanny tarfile
telnetlib tempfile termios textwrap threading time timeit tkinter token tokenize tomllib trace traceback tracemalloc
tty turtle types typing unicodedata unittest urllib uu uuid venv warnings wave weakref webbrowser winreg winsound
wsgiref xdrlib xml xmlrpc zipapp zipfile zipimport zlib zoneinfo
pip setuptools wheel python python3 pkg_resources
`)

// nodeBuiltins are Node.js's built-in modules (also importable as
// "node:name"), and the package managers themselves.
var nodeBuiltins = wordSet(`
assert async_hooks buffer child_process cluster console constants crypto dgram diagnostics_channel dns domain events
fs http http2 https inspector module net os path perf_hooks process punycode querystring readline repl stream
string_decoder sys test timers tls trace_events tty url util v8 vm wasi worker_threads zlib
npm npx yarn pnpm corepack node bun
`)

// rustStd are Rust's built-in crates and path keywords.
var rustStd = wordSet(`std core alloc proc_macro test crate self super`)

// pythonDist maps a Python import name to the distribution pip installs
// when they differ, so `import sklearn` and `pip install scikit-learn`
// are one library.
var pythonDist = map[string]string{
	"sklearn": "scikit-learn", "skimage": "scikit-image", "bs4": "beautifulsoup4", "yaml": "pyyaml",
	"pil": "pillow", "cv2": "opencv-python", "dotenv": "python-dotenv", "jwt": "pyjwt",
	"dateutil": "python-dateutil", "attr": "attrs", "mysqldb": "mysqlclient", "serial": "pyserial",
	"docx": "python-docx", "pptx": "python-pptx", "git": "gitpython", "zmq": "pyzmq",
	"telegram": "python-telegram-bot", "magic": "python-magic", "multipart": "python-multipart",
	"jose": "python-jose", "slugify": "python-slugify",
}
