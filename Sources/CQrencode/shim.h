// libqrencode's interface (Debian's libqrencode-dev).
#include <qrencode.h>
