// libqrencode: the migration link as a QR code a phone can scan from the terminal.
#include <qrencode.h>
