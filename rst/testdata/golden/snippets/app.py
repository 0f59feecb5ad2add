import os
import sys

# start
VALUE = 1
# end


class Thing:
    def run(self):
        return VALUE

    def stop(self):
        pass
